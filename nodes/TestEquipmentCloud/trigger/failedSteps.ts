import type { IDataObject } from 'n8n-workflow';
import { ServiceError, failedStepsOf, type ServiceClient } from '../../../client';
import type { StepsPending } from './state';

/**
 * Option "Include Failed Steps" of New Test Result: each failed result gets the steps that failed,
 * with their measured values and limits, from the detailed result (one request per failed
 * result; passed results cost none).
 *
 * A detail that cannot be read (after the client's retries) holds its result back, remembered
 * with the poll's state, and the poll goes on with the other results: the next poll tries again.
 * After MAX_STEP_TRIES polls the result is emitted without its steps, marked
 * `steps_unavailable: true` with the reason, so one unreadable detail never stops the trigger.
 * Once one detail has failed after all its retries, the others of the same poll are read with
 * `once` (no retries): a detail outage costs a poll one Max Retry Wait, not one per failed result.
 */
export const MAX_STEP_TRIES = 3;

/** Failures of the whole poll (token, licence, rate limit, maintenance): not the detail's own. */
const POLL_WIDE: ReadonlySet<string> = new Set(['auth', 'permission', 'license', 'rateLimit', 'maintenance']);

export interface StepsOutcome {
	items: IDataObject[];
	/** Results held back for another try (empty when none). */
	pending: StepsPending;
}

/** Waited out by every read as the poll's other requests are, also after a detail failed. */
const WAITED_OUT: ReadonlySet<string> = new Set(['rateLimit', 'maintenance']);

async function readDetail(client: ServiceClient, reader: ServiceClient, record: IDataObject): Promise<unknown> {
	const get = async (c: ServiceClient) => await c.call('testResult.get', { pathParams: { id: record.id }, parameter: 'id' });
	if (reader === client) return await get(client);
	return await get(reader).catch(async (error: unknown) => (error instanceof ServiceError && WAITED_OUT.has(error.kind) ? await get(client) : await Promise.reject(error)));
}

/**
 * The items with their failed steps; `pending` (from the last poll) are tried again first.
 * `maxTries` 1: no memory ("Fetch Test Event"), a detail that fails marks its result at once.
 */
export async function withFailedSteps(
	client: ServiceClient,
	items: IDataObject[],
	options: {
		pending?: StepsPending;
		maxTries?: number;
		once?: ServiceClient;
		onHeldBack?: (id: string, tries: number, reason: string) => void;
		onGivenUp?: (id: string, reason: string) => void;
	} = {},
): Promise<StepsOutcome> {
	const maxTries = options.maxTries ?? MAX_STEP_TRIES;
	let reader = client;
	const out: IDataObject[] = [];
	const pending: StepsPending = {};
	const earlier = Object.values(options.pending ?? {}).map((p) => ({ record: p.record, tries: p.tries }));
	const fresh = items.filter((r) => options.pending?.[String(r.id)] === undefined).map((record) => ({ record, tries: 0 }));
	for (const { record, tries } of [...earlier, ...fresh]) {
		if (typeof record.status !== 'string' || record.status.toLowerCase() !== 'failed') {
			out.push(record);
			continue;
		}
		// Only the detail's own failures are caught; the poll's own ones fail the poll.
		const read = await readDetail(client, reader, record).then(
			(detail) => ({ detail, failure: undefined }),
			async (error: unknown) => (error instanceof ServiceError && !POLL_WIDE.has(error.kind) ? { detail: undefined, failure: error } : await Promise.reject(error)),
		);
		if (read.failure === undefined) {
			const steps = failedStepsOf(read.detail);
			out.push({ ...record, failed_steps: steps as unknown as IDataObject[], failed_step_count: steps.length });
			continue;
		}
		reader = options.once ?? reader;
		const id = String(record.id);
		const reason = read.failure.message;
		if (tries + 1 >= maxTries) {
			options.onGivenUp?.(id, reason);
			out.push({ ...record, steps_unavailable: true, steps_unavailable_reason: reason });
		} else {
			options.onHeldBack?.(id, tries + 1, reason);
			pending[id] = { tries: tries + 1, record };
		}
	}
	return { items: out, pending };
}
