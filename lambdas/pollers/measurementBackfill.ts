import {
	STOPPED_READING,
	SharePacer,
	TREND_RESULTS,
	addFailedResult,
	addPassedResult,
	dayString,
	emptySeries,
	failedOf,
	measuredValuesOf,
	readOrGone,
	readPage,
	trendResultsOf,
	type DeviceSeries,
	type ServiceClient,
} from '../../client';
import { keyScope, pageSizeOf, type PollerContext, type RunReport } from './context';
import { NS, type BackfillState } from './state';

/**
 * The first run's backfill of measured values: for every device, its last BACKFILL_RESULTS passed
 * results since its latest failed one (client/measurementWarnings.ts, `trendResultsOf`) are read
 * into its kept values (client/measurementSeries.ts), so a drift shows from the first new result
 * on, fitted to the same results as Get Measurement Trend's (the kept values and the new one). Requests: the device list (pages), one list of each device's
 * results, one detail per result read, and at the start one request for the device count.
 *
 * Paced: every request of the backfill goes through a SharePacer of `backfillShare` of the
 * token's budget (client/sharePacing.ts), on top of the token's own pacing, so new results' alerts
 * keep the rest; a run spends at most BACKFILL_SLICE_MS on it: it begins a device only when the
 * waits of its reads fit, and before each request it stops for time when the share's wait would
 * pass the slice's end or the Lambda's time left (a device stopped mid-way, as when it has more
 * results than a page, is read again by the next run). Resumable: the position (devices
 * handled, in the list's order) and the id of the last device handled are saved after each device.
 * The device list can be neither ordered nor filtered by id (its filters and `ordering` take
 * property key ids, spec), so a run resumes by position and checks it: it re-reads from OVERLAP
 * devices before it and goes on after the saved device; when that device is not there by the saved
 * position (more devices deleted since than the overlap, or the device itself), the list is read
 * again from its start. Devices already marked `backfilled` are passed over unread either way, so
 * a shifted list costs list pages, never a device lost. Progress: the run report's `backfill`
 * (devicesDone, each device counted once when it is read, also when a run died after writing its
 * values and before saving its position (`inHand`), of devicesTotal, the list's count at the
 * start, raised to devicesDone at the end when devices were added; details, requests), a log line
 * per run, metric `BackfillDevices`. Runs while the results poller runs (after its new results),
 * until the list is read to its end; then never again.
 *
 * It relies on two choices of the service profile (ASSUMED in client/profile.ts): the test results
 * list filters by `device_id`, and the device list's unsorted order lists a new (or restored) device
 * after those there before it, so a device before the saved one was handled.
 */

/** One fewer than a trend's results: with the first new result, the backfilled values are the TREND_RESULTS the node fits. */
export const BACKFILL_RESULTS = TREND_RESULTS - 1;
/**
 * The longest a run spends on the backfill: below the 2 minutes the account's other pollers
 * (overdue, due soon) wait for its lease (context.ts), so they are not skipped because of it; the
 * run then ends and frees the lease, and the next run goes on.
 */
export const BACKFILL_SLICE_MS = 90_000;
/** One device's reads at most (its results list, one page at these sizes, and its details): a device is begun only when they fit. */
const DEVICE_REQUESTS = 1 + BACKFILL_RESULTS;
/** Devices re-listed before the saved position: deletions since the last run shift the list back. */
const OVERLAP = 50;

/** Thrown by a paced request whose wait would pass the slice or the Lambda's time left: the run stops for time. */
class OutOfTime extends Error {}

/** A request in the share, or OutOfTime when its wait would end too late (it is then not made). */
type Paced = <T>(request: () => Promise<T>) => Promise<T>;

function positiveId(v: unknown): number | null {
	const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN;
	return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** The device list's count, from a one-item page; null when the service gives none. */
async function deviceCount(client: ServiceClient): Promise<number | null> {
	const paging = client.profile.paging;
	const size: [string, string] = paging.style === 'limitOffset' ? [paging.limitParam, '1'] : [paging.pageSizeParam, '1'];
	const page = readPage(await client.call('device.list', { params: [size] }), 'device.list', client.profile);
	return page.shape === 'envelope' && typeof page.count === 'number' ? page.count : null;
}

export async function continueBackfill(ctx: PollerContext, report: RunReport, onGrant?: (at: number) => void): Promise<void> {
	const ns = NS.measurementBackfill(keyScope(ctx));
	const seriesNs = NS.measurements(keyScope(ctx));
	const stored = await ctx.store.get<BackfillState>(ns, 'backfill');
	if (stored?.done) return;
	const pacer = SharePacer.forShare({ now: ctx.now, sleep: ctx.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))) }, ctx.settings.backfillShare, undefined, onGrant);
	const state: BackfillState = stored ?? { offset: 0, devicesDone: 0, devicesTotal: await pacer.run(() => deviceCount(ctx.client)), detailsRead: 0, requests: 0, startedOn: dayString(ctx.now()) };
	// A run that died between writing a device's values and saving its position: the device is
	// backfilled (passed over unread from now on) and counted here; not written, it is read again.
	if (state.inHand !== undefined) {
		if ((await ctx.store.get<DeviceSeries>(seriesNs, String(state.inHand)))?.backfilled) state.devicesDone++;
		delete state.inHand;
	}
	const progress = { devicesDone: state.devicesDone, devicesTotal: state.devicesTotal, detailsRead: state.detailsRead, requests: state.requests, done: false };
	report.backfill = progress;
	const save = async () => {
		state.requests += pacer.granted;
		pacer.granted = 0;
		Object.assign(progress, { devicesDone: state.devicesDone, devicesTotal: state.devicesTotal, detailsRead: state.detailsRead, requests: state.requests });
		await ctx.store.putMany<BackfillState>(ns, [{ key: 'backfill', value: state }]);
	};
	const sliceEnd = ctx.now() + (ctx.settings.backfillSliceMs ?? BACKFILL_SLICE_MS);
	// Out of time when a request after `waitMs` would start at or past the slice's end or within the safety margin.
	const outOfTime = (waitMs = 0) => ctx.remainingMs() - waitMs < ctx.settings.safetyMs || ctx.now() + waitMs >= sliceEnd;
	// Every request of the slice asks first, so a long wait of a small share never runs past the slice or the Lambda.
	const paced: Paced = (request) => {
		if (outOfTime(pacer.nextWaitMs())) throw new OutOfTime();
		return pacer.run(request);
	};
	const stopForTime = async () => {
		report.stoppedForTime = true;
		await save();
		ctx.log.info('Backfill of measured values: stopping for time; the next run resumes', { ...progress });
	};
	// The saved device, looked for up to the saved position; undefined once found (or with nothing saved).
	let seeking = state.lastId;
	const savedOffset = state.offset;
	let position = seeking === undefined && state.offset > 0 ? 0 : Math.max(0, state.offset - OVERLAP);
	// An earlier version's state (a position without its device) is checked by reading from the start.
	if (seeking === undefined) state.offset = position;
	let pages = ctx.client.pages('device.list', {}, { pageSize: pageSizeOf(ctx), offset: position });
	let ended = false;
	const fromStart = () => {
		ctx.log.info('Backfill of measured values: the device list shifted past the saved device; reading it again from the start (backfilled devices unread)', { lastId: state.lastId, offset: state.offset });
		seeking = undefined;
		position = 0;
		state.offset = 0;
		pages = ctx.client.pages('device.list', {}, { pageSize: pageSizeOf(ctx), offset: 0 });
	};
	try {
		reading: for (;;) {
			if (outOfTime()) return await stopForTime();
			const next = await paced(() => pages.next());
			if (next.done) {
				if (seeking !== undefined) {
					fromStart();
					continue;
				}
				ended = true;
				break;
			}
			for (const raw of next.value) {
				position++;
				// A record without an id is passed over (nothing to keep); the position still counts it.
				const id = positiveId((raw as Record<string, unknown> | null)?.id);
				if (seeking !== undefined) {
					if (id === seeking) seeking = undefined;
					else if (position >= savedOffset) {
						await pages.return(STOPPED_READING);
						fromStart();
						continue reading;
					}
					continue;
				}
				const before = id === null ? undefined : ((await ctx.store.get<DeviceSeries>(seriesNs, String(id))) ?? emptySeries());
				if (id !== null && before && !before.backfilled) {
					// Begun only when its reads' waits fit, so its requests are not spent again next run.
					if (outOfTime(pacer.waitForMs(DEVICE_REQUESTS))) return await stopForTime();
					const { series, details } = await backfillDevice(ctx, paced, id, before);
					state.detailsRead += details;
					// Saved in hand, with its requests, before its values are written (see above).
					state.inHand = id;
					await save();
					await ctx.store.putMany<DeviceSeries>(seriesNs, [{ key: String(id), value: { ...series, backfilled: true } }]);
					delete state.inHand;
					state.offset = position;
					state.lastId = id;
					state.devicesDone++;
					ctx.metrics.count('BackfillDevices');
					await save();
				} else {
					state.offset = position;
					if (id !== null) state.lastId = id;
				}
			}
		}
	} catch (error) {
		// A device stopped mid-way is not written: the next run reads it again (its requests counted as spent).
		if (error instanceof OutOfTime) return await stopForTime();
		throw error;
	} finally {
		if (!ended) await pages.return(STOPPED_READING);
	}
	state.done = dayString(ctx.now());
	if (state.devicesTotal === null || state.devicesTotal < state.devicesDone) state.devicesTotal = state.devicesDone;
	await save();
	progress.done = true;
	ctx.log.info('Backfill of measured values: done', { ...progress });
}

/**
 * One device: its results' list, then the details of its last passed ones since its latest failed
 * one; `details`: those read (counted by the caller once the device is written).
 */
async function backfillDevice(ctx: PollerContext, paced: Paced, deviceId: number, before: DeviceSeries): Promise<{ series: DeviceSeries; details: number }> {
	const listed: Array<{ id: number; testDate: string; failed: boolean | null }> = [];
	const query = { filters: [{ key: 'device_id', conditions: [{ keyword: 'equals' as const, value: String(deviceId) }] }] };
	const pages = ctx.client.pages('testResult.list', query, { pageSize: pageSizeOf(ctx) });
	let ended = false;
	try {
		for (;;) {
			const next = await paced(() => pages.next());
			if (next.done) break;
			for (const raw of next.value) {
				const r = (raw ?? {}) as Record<string, unknown>;
				const id = positiveId(r.id);
				const testDate = typeof r.test_date === 'string' ? r.test_date.slice(0, 10) : null;
				if (id !== null && testDate !== null && positiveId(r.device_id) === deviceId) listed.push({ id, testDate, failed: failedOf(r.status) });
			}
		}
		ended = true;
	} finally {
		if (!ended) await pages.return(STOPPED_READING);
	}
	let series = before;
	let details = 0;
	// The latest failure by test date, then id: a passed re-test on its day (a larger id) is kept.
	const latestFailed = listed.filter((r) => r.failed === true).reduce<{ id: number; testDate: string } | null>((m, r) => (m === null || r.testDate > m.testDate || (r.testDate === m.testDate && r.id > m.id) ? r : m), null);
	if (latestFailed !== null) series = addFailedResult(series, latestFailed.testDate, latestFailed.id);
	for (const r of trendResultsOf(listed, BACKFILL_RESULTS)) {
		const detail = await paced(() => readOrGone(ctx.client, 'testResult.get', r.id));
		if (detail === undefined) continue;
		details++;
		series = addPassedResult(series, { id: r.id, testDate: r.testDate, values: measuredValuesOf(detail).values });
	}
	return { series, details };
}
