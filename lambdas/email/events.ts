import { parser } from '@aws-lambda-powertools/parser/middleware';
import type { ParsedResult } from '@aws-lambda-powertools/parser/types';
import * as z from 'zod/v4-mini';
import { DETAIL_TYPES, EVENT_SOURCE, eventSchemas } from '../events/schemas';
import { once } from '../once';

function delivered<T extends string, D extends z.ZodMiniType>(type: T, detail: D) {
	return z.object({ source: z.literal(EVENT_SOURCE), 'detail-type': z.literal(type), detail });
}

/**
 * The EventBridge events the e-mails are built from, whole: `detail-type` picks the contract's
 * detail schema. Written in zod 4 (its mini API) like the contract; Parser's EventBridge envelope is not used
 * because it extends its own schema, written in zod's v3 API, which cannot hold a v4 schema.
 * Built by the first event read, not while the function loads (eventSchemas says why).
 */
const emailEvent = once(() => {
	const { DeviceOverdueDetail, DeviceOverdueResolvedDetail, DeviceDueSoonDetail, TestResultFailedDetail } = eventSchemas();
	return z.discriminatedUnion('detail-type', [
		delivered(DETAIL_TYPES.deviceOverdue, DeviceOverdueDetail),
		delivered(DETAIL_TYPES.deviceOverdueResolved, DeviceOverdueResolvedDetail),
		delivered(DETAIL_TYPES.deviceDueSoon, DeviceDueSoonDetail),
		delivered(DETAIL_TYPES.testResultFailed, TestResultFailedDetail),
	]);
});
export type EmailEvent = z.infer<ReturnType<typeof emailEvent>>;

/** The detail types the e-mails read: the stack's rule delivers only these (asserted in test/infra). */
export const detailTypesRead = (): string[] => emailEvent().def.options.map((o) => o.shape['detail-type'].def.values[0]);
const read = once((): ReadonlySet<string> => new Set(detailTypesRead()));

/** An event that breaks its schema: refused, with each field and why. */
export class EventRefused extends Error {
	override readonly name = 'EventRefused';
	constructor(
		readonly detailType: string,
		readonly issues: Array<{ field: string; message: string }>,
	) {
		super(`The "${detailType}" event does not match its schema: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`);
	}
}

/**
 * Powertools Parser (safeParse mode) with `schema`. Parser 2.24 offers parsing as a Middy
 * middleware or a method decorator only; the handlers follow Powertools' manual pattern without
 * Middy (lambdas/handlers/powertools.ts), so the middleware's `before` hook runs here on its own:
 * it replaces the request's event with the parse result. A failed parse is refused, its fields
 * named from `root` (the detail, for EventBridge events: the contract's JSON Schemas describe it).
 */
function reader<S extends z.ZodMiniType>(schema: S, root?: string) {
	const middleware = parser({ schema, safeParse: true });
	return (event: unknown, detailType: string): z.infer<S> => {
		const request = { event } as Parameters<NonNullable<typeof middleware.before>>[0];
		void middleware.before?.(request);
		const parsed = request.event as ParsedResult<unknown, z.infer<S>>;
		if (parsed.success) return parsed.data;
		// The cause is the schema's Standard Schema issues.
		const issues = (parsed.error.cause ?? []) as ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }>;
		throw new EventRefused(
			detailType,
			issues.map((issue) => {
				const path = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p));
				// Fields are named from the root; the root itself (an event without `detail`) by its name.
				const field = root !== undefined && path[0] === root && path.length > 1 ? path.slice(1) : path;
				return { field: field.join('.') || '(the event)', message: issue.message };
			}),
		);
	};
}

const readDelivered = once(() => reader(emailEvent(), 'detail'));

/**
 * Reads one delivered event: an event the e-mails use, checked against its schema; or why it is
 * ignored (another source or detail type). A used event that breaks its schema throws EventRefused,
 * before anything is written.
 */
export function readEmailEvent(input: unknown): EmailEvent | { detailType: string; ignored: string } {
	const envelope = (typeof input === 'object' && input !== null ? input : {}) as { source?: unknown; 'detail-type'?: unknown };
	const detailType = typeof envelope['detail-type'] === 'string' ? envelope['detail-type'] : '';
	if (envelope.source !== EVENT_SOURCE) return { detailType, ignored: `source "${String(envelope.source)}" is not ${EVENT_SOURCE}` };
	if (!read().has(detailType)) return { detailType, ignored: `detail-type "${detailType}" is not used by the e-mails` };
	return readDelivered()(input, detailType);
}

/**
 * The digest's input: EventBridge Scheduler passes the time the run was scheduled for (its
 * `<aws.scheduler.scheduled-time>`, ISO 8601); run by hand without it, the digest is today's.
 */
export const DIGEST_INVOCATION = 'Digest Invocation';
const readInvocation = once(() => reader(z.nullish(z.object({ scheduledTime: z.optional(z.iso.datetime({ offset: true })) }))));

/** Reads the digest's input; a scheduledTime that is no ISO 8601 time throws EventRefused. */
export function readDigestInvocation(input: unknown): { scheduledTime?: string } | undefined {
	return readInvocation()(input, DIGEST_INVOCATION) ?? undefined;
}
