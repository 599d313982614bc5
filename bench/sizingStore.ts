import type { StateStore, StoredItem } from '../lambdas/ports';
import { storedItemFault } from '../lambdas/pollers/state';

/**
 * An in-memory state store that does what the DynamoDB adapter does to each item (serialize on
 * write, parse and check the stored shape on read) and weighs it as DynamoDB would bill it: the
 * item `{pk, sk, v, expiresAt}` as JSON, about DynamoDB's item size (attribute names and values).
 * Figures are kept per kind of namespace (`tests`, `dueDates`, …: the namespace before its scope).
 */

/** DynamoDB bills a write per started KB of the item, a read per started 4 KB. */
export const WRITE_UNIT_BYTES = 1024;
export const READ_UNIT_BYTES = 4096;
/** BatchWriteItem takes 25 items: the DynamoDB adapter's round trips per putMany. */
export const BATCH_ITEMS = 25;

export interface Written {
	items: number;
	bytes: number;
	/** Write request units: each item's started KBs. */
	wru: number;
	/** BatchWriteItem calls the DynamoDB adapter would make. */
	batches: number;
}

export interface Held {
	items: number;
	bytes: number;
	/** The largest item (DynamoDB's limit is 400 KB). */
	largest: number;
}

const kindOf = (namespace: string) => namespace.split(':')[0];

export class SizingStore implements StateStore {
	private data = new Map<string, Map<string, string>>();
	private writes = new Map<string, Written>();

	async *list<T>(namespace: string): AsyncIterable<StoredItem<T>> {
		for (const [key, text] of this.data.get(namespace) ?? []) yield { key, value: this.read<T>(namespace, key, text) };
	}

	async get<T>(namespace: string, key: string): Promise<T | undefined> {
		const text = this.data.get(namespace)?.get(key);
		return text === undefined ? undefined : this.read<T>(namespace, key, text);
	}

	async putMany<T>(namespace: string, items: Array<StoredItem<T> & { expiresAt?: number }>): Promise<void> {
		if (items.length === 0) return;
		const held = this.data.get(namespace) ?? new Map<string, string>();
		this.data.set(namespace, held);
		const w = this.writes.get(kindOf(namespace)) ?? { items: 0, bytes: 0, wru: 0, batches: 0 };
		this.writes.set(kindOf(namespace), w);
		for (const item of items) {
			const expiresAt = item.expiresAt === undefined ? undefined : Math.ceil(item.expiresAt / 1000);
			const text = JSON.stringify({ pk: namespace, sk: item.key, v: item.value, expiresAt });
			held.set(item.key, text);
			const size = Buffer.byteLength(text);
			w.items++;
			w.bytes += size;
			w.wru += Math.ceil(size / WRITE_UNIT_BYTES);
		}
		w.batches += Math.ceil(items.length / BATCH_ITEMS);
	}

	async acquireLease() {
		return true;
	}

	async releaseLease() {}

	/** What was written, by kind of namespace. */
	written(): Record<string, Written> {
		return Object.fromEntries(this.writes);
	}

	/** What the store holds now, by kind of namespace. */
	held(): Record<string, Held> {
		const out: Record<string, Held> = {};
		for (const [namespace, items] of this.data) {
			const h = (out[kindOf(namespace)] ??= { items: 0, bytes: 0, largest: 0 });
			for (const text of items.values()) {
				const size = Buffer.byteLength(text);
				h.items++;
				h.bytes += size;
				h.largest = Math.max(h.largest, size);
			}
		}
		return out;
	}

	private read<T>(namespace: string, key: string, text: string): T {
		const value = (JSON.parse(text) as { v: unknown }).v;
		const fault = storedItemFault(namespace, key, value);
		if (fault) throw new Error(`bad stored value at ${namespace} › ${key}: ${fault}`);
		return value as T;
	}
}
