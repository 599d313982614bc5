import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import * as z from 'zod/v4';
import type { StateStore, StoredItem } from '../ports';
import { describeIssues, isItemId, storedShape, type StoredShape } from '../pollers/state';

interface Stored {
	v: unknown;
	expiresAt?: number;
}

type Data = Record<string, Record<string, Stored>>;

export interface FileStateStoreOptions {
	now?: () => number;
	/**
	 * Take the file's lock (`<file>.lock`, holding this process's pid) so that a second process on
	 * the same file refuses to start. `npm start` sets it; a lock left by a process that no longer
	 * runs is taken over, and the leases it left behind are dropped.
	 */
	lock?: boolean;
}

/**
 * The state store for `npm start`: one JSON file, rewritten atomically (temporary file, then
 * rename) after every change, so a killed runner never leaves half a file behind. A change is
 * kept in memory only once it is on disk (a failed write leaves no lease and no state behind),
 * except a released lease, which is gone from memory at once. The file is checked when read: a wrong shape is refused with the
 * place and what is wrong, never read as "nothing stored".
 */
export class FileStateStore implements StateStore {
	private data: Data;
	private readonly now: () => number;
	/** Set when a lock left by a process that no longer runs was taken over. */
	readonly staleLock?: { pid: number };
	private unlock?: () => void;

	constructor(
		private readonly path: string,
		options: FileStateStoreOptions | (() => number) = {},
	) {
		const opts = typeof options === 'function' ? { now: options } : options;
		this.now = opts.now ?? Date.now;
		if (opts.lock) {
			const lock = lockStateFile(path);
			this.unlock = lock.release;
			this.staleLock = lock.stale;
		}
		try {
			this.data = readStateFile(path);
			// With the lock held, no other process can be running a poll on this file: leases found
			// in it were left by a process that stopped without releasing them (killed, crashed).
			if (opts.lock && this.data.lease !== undefined) {
				const { lease: _dropped, ...rest } = this.data;
				this.data = rest;
			}
		} catch (error) {
			this.close();
			throw error;
		}
	}

	/** Releases the lock (also done when the process exits). */
	close(): void {
		this.unlock?.();
		this.unlock = undefined;
	}

	async *list<T>(namespace: string): AsyncIterable<StoredItem<T>> {
		for await (const page of this.listPages<T>(namespace)) yield* page;
	}

	/** The namespace's items not expired now, in pages of 1000 (short-lived: not the whole namespace copied at once). */
	async *listPages<T>(namespace: string): AsyncIterable<Array<StoredItem<T>>> {
		const now = this.now();
		let page: Array<StoredItem<T>> = [];
		for (const [key, item] of Object.entries(this.data[namespace] ?? {})) {
			if (item.expiresAt !== undefined && item.expiresAt <= now) continue;
			page.push({ key, value: item.v as T });
			if (page.length < 1000) continue;
			yield page;
			page = [];
		}
		if (page.length > 0) yield page;
	}

	async get<T>(namespace: string, key: string): Promise<T | undefined> {
		const item = this.data[namespace]?.[key];
		return item && (item.expiresAt === undefined || item.expiresAt > this.now()) ? (item.v as T) : undefined;
	}

	async putMany<T>(namespace: string, items: Array<StoredItem<T> & { expiresAt?: number }>): Promise<void> {
		if (items.length === 0) return;
		const ns = { ...this.data[namespace] };
		for (const item of items) ns[item.key] = item.expiresAt === undefined ? { v: item.value } : { v: item.value, expiresAt: item.expiresAt };
		this.commit({ ...this.data, [namespace]: ns });
	}

	async acquireLease(name: string, owner: string, now: number, durationMs: number): Promise<boolean> {
		const lease = this.data.lease?.[name]?.v as { owner: string; until: number } | undefined;
		if (lease && lease.until >= now && lease.owner !== owner) return false;
		this.commit({ ...this.data, lease: { ...this.data.lease, [name]: { v: { owner, until: now + durationMs } } } });
		return true;
	}

	async releaseLease(name: string, owner: string): Promise<void> {
		const lease = this.data.lease?.[name]?.v as { owner: string } | undefined;
		if (lease?.owner === owner) {
			const { [name]: _released, ...leases } = this.data.lease;
			const next = { ...this.data, lease: leases };
			// Released in memory even if the write fails: the next write (or the next runner taking
			// the lock) removes it from the file too; the process never locks itself out.
			this.data = next;
			this.commit(next);
		}
	}

	/** Writes `next`, then makes it the state: if the write fails, memory keeps what the file has. */
	private commit(next: Data): void {
		mkdirSync(dirname(this.path), { recursive: true });
		const tmp = `${this.path}.${process.pid}.tmp`;
		writeFileSync(tmp, JSON.stringify(next));
		renameSync(tmp, this.path);
		this.data = next;
	}
}

// ---- reading and checking the file -------------------------------------------------------------

const finite = z.number().refine(Number.isFinite, 'expected a finite number');
const Item = z.object({ v: z.unknown(), expiresAt: finite.optional() });
/** The store's own leases; every other shape is the pollers' own (pollers/state.ts). */
const LEASES: StoredShape = { keys: 'any', value: z.looseObject({ owner: z.string(), until: finite }) };

function shapeOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`.slice(0, 60);
}

/** The parsed, checked file; {} when it does not exist. Throws naming the file and the fault. */
export function readStateFile(path: string): Data {
	let text: string;
	try {
		text = readFileSync(path, 'utf8');
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
		throw new Error(`The state file ${path} cannot be read (${(error as Error).message})`);
	}
	const refuse = (what: string) => new Error(`The state file ${path} ${what}; fix it or move it away to start afresh`);
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (error) {
		throw refuse(`is not readable JSON (${(error as Error).message})`);
	}
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw refuse(`holds ${shapeOf(parsed)}, where an object of namespaces ({"overdue:sandbox": {…}, …}) was expected`);
	}
	for (const [namespace, items] of Object.entries(parsed)) {
		if (items === null || typeof items !== 'object' || Array.isArray(items)) {
			throw refuse(`holds ${shapeOf(items)} under "${namespace}", where an object of stored items was expected`);
		}
		const shape = namespace === 'lease' ? LEASES : storedShape(namespace);
		for (const [key, item] of Object.entries(items as Record<string, unknown>)) {
			const at = `"${namespace}" › "${key}"`;
			if (shape?.keys === 'ids' && !isItemId(key)) throw refuse(`has the key ${at}, where an item id (a positive whole number) was expected`);
			const envelope = Item.safeParse(item);
			if (!envelope.success) throw refuse(`has ${at} of the wrong shape (${describeIssues(envelope.error, '')}); each item is {"v": value, "expiresAt"?: ms}`);
			const value = shape?.value.safeParse(envelope.data.v);
			if (value && !value.success) throw refuse(`has a bad stored value at ${at}: ${describeIssues(value.error, 'v')}`);
		}
	}
	return parsed as Data;
}

// ---- the lock ------------------------------------------------------------------------------------

function running(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		// EPERM: it runs, under another user.
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** Locks still held when the process exits are released then: one exit listener for all (a runner of many accounts holds a lock per account). */
const releaseOnExit = new Set<() => void>();
function onExit(release: () => void): void {
	if (releaseOnExit.size === 0 && !process.listeners('exit').includes(releaseAll)) process.on('exit', releaseAll);
	releaseOnExit.add(release);
}
function releaseAll(): void {
	for (const release of [...releaseOnExit]) release();
}

/**
 * `<file>.lock`, created exclusively with this process's pid. A lock whose process no longer runs
 * is stale and taken over; one whose process runs makes this one refuse with a clear message.
 */
export function lockStateFile(path: string): { release: () => void; stale?: { pid: number } } {
	const lockPath = `${path}.lock`;
	mkdirSync(dirname(lockPath), { recursive: true });
	let stale: { pid: number } | undefined;
	for (let tries = 0; tries < 3; tries++) {
		try {
			writeFileSync(lockPath, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }), { flag: 'wx' });
			const release = () => {
				releaseOnExit.delete(release);
				try {
					const holder = JSON.parse(readFileSync(lockPath, 'utf8')) as { pid?: unknown };
					if (holder.pid === process.pid) unlinkSync(lockPath);
				} catch {
					/* already gone */
				}
			};
			onExit(release);
			return { release, stale };
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`Cannot lock the state file ${path} (${(error as Error).message})`);
		}
		let pid: number | undefined;
		let seen = '';
		try {
			seen = readFileSync(lockPath, 'utf8');
			const holder = JSON.parse(seen) as { pid?: unknown };
			if (typeof holder.pid === 'number' && Number.isInteger(holder.pid) && holder.pid > 0) pid = holder.pid;
		} catch {
			/* unreadable: treated as stale below */
		}
		if (pid !== undefined && running(pid)) {
			throw new Error(
				`The state file ${path} is in use by another process (pid ${pid}${pid === process.pid ? ', this one' : ''}, lock ${lockPath}): two runners on one state file would announce events twice. Stop the other one, or give this one its own file with --state`,
			);
		}
		stale = { pid: pid ?? 0 };
		// Remove the stale lock and try again; if another starter removed it and took the lock
		// first, the next round sees a running holder and refuses.
		try {
			if (readFileSync(lockPath, 'utf8') === seen) unlinkSync(lockPath);
		} catch {
			/* taken by someone else meanwhile */
		}
	}
	throw new Error(`Cannot lock the state file ${path}: the lock ${lockPath} keeps changing; is another runner starting?`);
}
