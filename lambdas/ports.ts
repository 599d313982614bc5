import type { TecEvent } from './events/event';

/**
 * The pollers' ports. Each has one adapter per place it runs: DynamoDB / EventBridge in AWS,
 * a local file / stdout / webhook under `npm start`. The service port is the client core itself
 * (`ServiceClient`), whose request function is the adapter.
 */

export interface StoredItem<T> {
	key: string;
	value: T;
}

export interface StateStore {
	/** Every item of a namespace, page by page. */
	list<T>(namespace: string): AsyncIterable<StoredItem<T>>;
	/**
	 * The same items a store read at a time (a DynamoDB query page, the whole file): a poller that
	 * loads a namespace of thousands awaits once per read, not once per item. Optional: `storedItems`
	 * falls back to `list`.
	 */
	listPages?<T>(namespace: string): AsyncIterable<ReadonlyArray<StoredItem<T>>>;
	get<T>(namespace: string, key: string): Promise<T | undefined>;
	/** Writes items; `expiresAt` (ms) lets the store drop them later (DynamoDB TTL). */
	putMany<T>(namespace: string, items: Array<StoredItem<T> & { expiresAt?: number }>): Promise<void>;
	/** True when this owner now holds the lease (free, expired, or already ours). */
	acquireLease(name: string, owner: string, now: number, durationMs: number): Promise<boolean>;
	releaseLease(name: string, owner: string): Promise<void>;
}

export interface Publisher {
	/** Resolves when every event is accepted; rejects (PublishError) when any could not be. */
	publish(events: TecEvent[]): Promise<void>;
}

export class PublishError extends Error {
	override readonly name = 'PublishError';
	constructor(
		message: string,
		readonly failedDedupeKeys: string[],
	) {
		super(message);
	}
}

export interface Log {
	info(message: string, extra?: Record<string, unknown>): void;
	warn(message: string, extra?: Record<string, unknown>): void;
	error(message: string, extra?: Record<string, unknown>): void;
}

export interface Metrics {
	count(name: string, value?: number): void;
	/** A level rather than a count (the compliance figures on the dashboard); adapters without it drop it. */
	gauge?(name: string, value: number, unit: 'Count' | 'Percent'): void;
}

export const silentLog: Log = { info: () => undefined, warn: () => undefined, error: () => undefined };
export const noMetrics: Metrics = { count: () => undefined };
