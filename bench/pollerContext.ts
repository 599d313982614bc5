import type { ServiceClient } from '../client';
import { DEFAULT_SETTINGS, type PollerContext } from '../lambdas/pollers/context';
import type { StateStore, StoredItem } from '../lambdas/ports';

/** The pollers' state in memory: the bench measures the poller and the service, not a store. */
export class MemoryStore implements StateStore {
	private data = new Map<string, Map<string, unknown>>();
	async *list<T>(ns: string): AsyncIterable<StoredItem<T>> {
		for (const [key, value] of this.data.get(ns) ?? []) yield { key, value: value as T };
	}
	/** Pages of 1000 items, about what a DynamoDB query page (1 MB) holds of the pollers' state. */
	async *listPages<T>(ns: string): AsyncIterable<Array<StoredItem<T>>> {
		let page: Array<StoredItem<T>> = [];
		for (const [key, value] of this.data.get(ns) ?? []) {
			page.push({ key, value: value as T });
			if (page.length < 1000) continue;
			yield page;
			page = [];
		}
		if (page.length > 0) yield page;
	}
	async get<T>(ns: string, key: string) {
		return this.data.get(ns)?.get(key) as T | undefined;
	}
	async putMany<T>(ns: string, items: Array<StoredItem<T>>) {
		const m = this.data.get(ns) ?? new Map<string, unknown>();
		for (const i of items) m.set(i.key, i.value);
		this.data.set(ns, m);
	}
	async acquireLease() {
		return true;
	}
	async releaseLease() {}
}

/** A poller's context as `npm start` builds it (no time budget), counting what it publishes. */
export function benchContext(client: ServiceClient, store: StateStore, counter: { emitted: number }, settings: Partial<PollerContext['settings']> = {}): PollerContext {
	return {
		client,
		store,
		publisher: { publish: async (events) => void (counter.emitted += events.length) },
		environment: 'sandbox',
		now: Date.now,
		remainingMs: () => Number.POSITIVE_INFINITY,
		log: { info: () => undefined, warn: () => undefined, error: () => undefined },
		metrics: { count: () => undefined },
		settings: { ...DEFAULT_SETTINGS, safetyMs: 0, ...settings },
		runId: 'bench',
	};
}
