import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { MailStore, StoredItem } from '../email/ports';

type Data = Record<string, Record<string, { v: unknown; expiresAt?: number }>>;

/** The e-mail facts for `npm start`: one JSON file, rewritten atomically after every change. */
export class FileMailStore implements MailStore {
	private data: Data;

	constructor(
		private readonly path: string,
		private readonly now: () => number = Date.now,
	) {
		try {
			this.data = JSON.parse(readFileSync(path, 'utf8')) as Data;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`The e-mail state file ${path} is not readable JSON (${(error as Error).message}); move it away to start afresh`);
			this.data = {};
		}
	}

	async *list<T>(namespace: string): AsyncIterable<StoredItem<T>> {
		const now = this.now();
		for (const [key, item] of Object.entries(this.data[namespace] ?? {})) if (item.expiresAt === undefined || item.expiresAt > now) yield { key, value: item.v as T };
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

	async deleteMany(namespace: string, keys: string[]): Promise<void> {
		const ns = this.data[namespace];
		if (!ns || keys.length === 0) return;
		for (const k of keys) delete ns[k];
		this.flush();
	}

	private flush(): void {
		mkdirSync(dirname(this.path), { recursive: true });
		const tmp = `${this.path}.${process.pid}.tmp`;
		writeFileSync(tmp, JSON.stringify(this.data));
		renameSync(tmp, this.path);
	}
}
