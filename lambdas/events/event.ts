import { randomUUID } from 'node:crypto';
import { EVENT_SOURCE, EVENT_VERSION, detailSchema, type DetailType } from './schemas';

/** An event as EventBridge rules see it (`source`, `detail-type`, `detail`). */
export interface TecEvent {
	source: typeof EVENT_SOURCE;
	'detail-type': DetailType;
	time: string;
	detail: { metadata: { id: string; version: string; occurredAt: string; dedupeKey: string; environment: 'sandbox' | 'production'; account?: string }; data: unknown };
}

/** Whose fact an event states: the service environment, and the account when the deployment watches several. */
export interface EventScope {
	environment: 'sandbox' | 'production';
	account?: string;
}

/** Builds an event and checks it against its schema: an event that breaks the contract never leaves. */
export function makeEvent(type: DetailType, scopeOrEnvironment: EventScope | EventScope['environment'], dedupeKey: string, data: unknown, now: number): TecEvent {
	const scope = typeof scopeOrEnvironment === 'string' ? { environment: scopeOrEnvironment } : scopeOrEnvironment;
	const occurredAt = new Date(now).toISOString();
	const event: TecEvent = {
		source: EVENT_SOURCE,
		'detail-type': type,
		time: occurredAt,
		detail: { metadata: { id: randomUUID(), version: EVENT_VERSION, occurredAt, dedupeKey, environment: scope.environment, ...(scope.account === undefined ? {} : { account: scope.account }) }, data },
	};
	detailSchema(type).parse(event.detail);
	return event;
}

/** PutEvents entry size as AWS computes it: Time (14 bytes when set) + UTF-8 bytes of Source, DetailType, Detail. */
export function entrySize(event: TecEvent): number {
	return 14 + Buffer.byteLength(event.source) + Buffer.byteLength(event['detail-type']) + Buffer.byteLength(JSON.stringify(event.detail));
}

export const MAX_ENTRY_BYTES = 256 * 1024;
export const MAX_ENTRIES_PER_CALL = 10;
