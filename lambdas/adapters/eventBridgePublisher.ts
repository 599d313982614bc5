import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { MAX_ENTRIES_PER_CALL, MAX_ENTRY_BYTES, entrySize, type TecEvent } from '../events/event';
import { PublishError, silentLog, type Log, type Metrics, noMetrics, type Publisher } from '../ports';

/** Error codes of failed PutEvents entries worth sending again. */
const RETRYABLE_CODES = new Set(['ThrottlingException', 'InternalFailure', 'InternalException', 'ServiceUnavailable']);

export interface EventBridgePublisherOptions {
	busName: string;
	client?: EventBridgeClient;
	maxAttempts?: number;
	baseDelayMs?: number;
	sleep?: (ms: number) => Promise<void>;
	log?: Log;
	metrics?: Metrics;
}

/** Splits events into PutEvents calls of at most 10 entries and 256 KB. */
export function batches(events: TecEvent[]): TecEvent[][] {
	const out: TecEvent[][] = [];
	let current: TecEvent[] = [];
	let bytes = 0;
	for (const event of events) {
		const size = entrySize(event);
		if (size > MAX_ENTRY_BYTES) {
			throw new PublishError(`An event of ${size} bytes is over the 256 KB PutEvents limit (${event.detail.metadata.dedupeKey})`, [event.detail.metadata.dedupeKey]);
		}
		if (current.length === MAX_ENTRIES_PER_CALL || bytes + size > MAX_ENTRY_BYTES) {
			out.push(current);
			current = [];
			bytes = 0;
		}
		current.push(event);
		bytes += size;
	}
	if (current.length > 0) out.push(current);
	return out;
}

export class EventBridgePublisher implements Publisher {
	private readonly client: EventBridgeClient;

	constructor(private readonly options: EventBridgePublisherOptions) {
		this.client = options.client ?? new EventBridgeClient({});
	}

	async publish(events: TecEvent[]): Promise<void> {
		const failed: string[] = [];
		for (const batch of batches(events)) failed.push(...(await this.send(batch)));
		if (failed.length > 0) {
			throw new PublishError(`${failed.length} event(s) could not be published: ${failed.join(', ')}`, failed);
		}
	}

	/** Sends one batch; re-sends entries that failed with retryable codes. Returns dedupe keys that failed for good. */
	private async send(batch: TecEvent[]): Promise<string[]> {
		const { maxAttempts = 5, baseDelayMs = 200, sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) } = this.options;
		const log = this.options.log ?? silentLog;
		const metrics = this.options.metrics ?? noMetrics;
		let pending = batch;
		const permanent: string[] = [];
		for (let attempt = 1; pending.length > 0; attempt++) {
			const entries: PutEventsRequestEntry[] = pending.map((e) => ({
				Source: e.source,
				DetailType: e['detail-type'],
				Detail: JSON.stringify(e.detail),
				Time: new Date(e.time),
				EventBusName: this.options.busName,
			}));
			let retry: TecEvent[] = [];
			try {
				const out = await this.client.send(new PutEventsCommand({ Entries: entries }));
				(out.Entries ?? []).forEach((entry, i) => {
					if (!entry.ErrorCode) return;
					const event = pending[i];
					if (RETRYABLE_CODES.has(entry.ErrorCode)) retry.push(event);
					else {
						permanent.push(event.detail.metadata.dedupeKey);
						log.error('EventBridge refused an event', { dedupeKey: event.detail.metadata.dedupeKey, errorCode: entry.ErrorCode, errorMessage: entry.ErrorMessage });
					}
				});
			} catch (error) {
				// The whole call failed (after the SDK's own retries): try the batch again.
				log.warn('PutEvents failed', { error: (error as Error).name, attempt });
				retry = pending;
			}
			if (retry.length > 0) metrics.count('PutEventsRetries', retry.length);
			if (retry.length > 0 && attempt >= maxAttempts) {
				for (const e of retry) log.error('Giving up on an event after retries', { dedupeKey: e.detail.metadata.dedupeKey, attempts: attempt });
				permanent.push(...retry.map((e) => e.detail.metadata.dedupeKey));
				break;
			}
			if (retry.length > 0) await sleep(Math.min(5000, baseDelayMs * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2));
			pending = retry;
		}
		return permanent;
	}
}
