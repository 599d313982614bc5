import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StateStore, StoredItem } from '../ports';

interface Stored {
	v: unknown;
	expiresAt?: number;
}

/**
 * The state store for `npm start`: one JSON file, rewritten atomically (temporary file, then
 * rename) after every change, so a killed runner never leaves half a file behind.
 */
export class FileStateStore implements StateStore {
	private data: Record<string, Record<string, Stored>>;

	constructor(
		private readonly path: string,
		private readonly now: () => number = Date.now,
	) {
		try {
			this.data = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, Stored>>;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
				throw new Error(`The state file ${path} is not readable JSON (${(error as Error).message}); move it away to start afresh`);
			}
			this.data = {};
		}
	}

	async *list<T>(namespace: string): AsyncIterable<StoredItem<T>> {
		const now = this.now();
		for (const [key, item] of Object.entries(this.data[namespace] ?? {})) {
			if (item.expiresAt === undefined || item.expiresAt > now) yield { key, value: item.v as T };
		}
	}

	async get<T>(namespace: string, key: string): Promise<T | undefined> {
		const item = this.data[namespace]?.[key];
		return item && (item.expiresAt === undefined || item.expiresAt > this.now()) ? (item.v as T) : undefined;
	}

	async putMany<T>(namespace: string, items: Array<StoredItem<T> & { expiresAt?: number }>): Promise<void> {
		if (items.length === 0) return;
		const ns = (this.data[namespace] ??= {});
		for (const item of items) ns[item.key] = item.expiresAt === undefined ? { v: item.value } : { v: item.value, expiresAt: item.expiresAt };
		this.flush();
	}

	async acquireLease(name: string, owner: string, now: number, durationMs: number): Promise<boolean> {
		const lease = this.data.lease?.[name]?.v as { owner: string; until: number } | undefined;
		if (lease && lease.until >= now && lease.owner !== owner) return false;
		(this.data.lease ??= {})[name] = { v: { owner, until: now + durationMs } };
		this.flush();
		return true;
	}

	async releaseLease(name: string, owner: string): Promise<void> {
		const lease = this.data.lease?.[name]?.v as { owner: string } | undefined;
		if (lease?.owner === owner) {
			delete this.data.lease[name];
			this.flush();
		}
	}

	private flush(): void {
		mkdirSync(dirname(this.path), { recursive: true });
		const tmp = `${this.path}.${process.pid}.tmp`;
		writeFileSync(tmp, JSON.stringify(this.data));
		renameSync(tmp, this.path);
	}
}
