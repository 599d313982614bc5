import { epochDay } from '../../client/dates';

/**
 * Quick checks of the shapes stored by the hundred thousand (state.ts: DueHistory,
 * TestRecord, MeasurementSeries), for reading them back without a zod parse per item. Each accepts only values its
 * zod schema accepts; anything else goes on to the schema, which accepts it or names the fault.
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const id = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 1;
const day = (v: unknown) => typeof v === 'string' && v.length === 10 && /^\d{4}-\d{2}-\d{2}$/.test(v) && epochDay(v) !== undefined;
const text = (v: unknown) => v === null || typeof v === 'string';
const optional = (v: unknown, fits: (v: unknown) => boolean) => v === undefined || fits(v);
const dayOrNull = (v: unknown) => v === null || day(v);
const OUTCOMES = new Set(['open', 'tested', 'deleted', 'moved']);

function entryFits(e: unknown): boolean {
	if (!isObj(e)) return false;
	return (
		day(e.due) &&
		day(e.openedOn) &&
		typeof e.firstSeenOverdue === 'boolean' &&
		OUTCOMES.has(e.outcome as string) &&
		optional(e.closedOn, day) &&
		optional(e.testedOn, day) &&
		(e.rebuilt === undefined || e.rebuilt === true) &&
		(e.customerId === null || id(e.customerId)) &&
		text(e.customerName) &&
		text(e.department)
	);
}

export function dueHistoryFits(v: unknown): boolean {
	if (!isObj(v) || !isObj(v.device) || !Array.isArray(v.entries)) return false;
	const d = v.device;
	const deviceFits =
		(d.customerId === null || id(d.customerId)) &&
		text(d.customerName) &&
		text(d.department) &&
		text(d.designation) &&
		dayOrNull(d.nextTestDate) &&
		dayOrNull(d.lastTestedDate) &&
		optional(d.lastResultDate, dayOrNull) &&
		day(d.seenOn) &&
		optional(d.deletedOn, day) &&
		optional(d.testIntervalMonths, (n) => n === null || id(n)) &&
		optional(d.createdOn, dayOrNull);
	return deviceFits && v.entries.every(entryFits);
}

export function testRecordFits(v: unknown): boolean {
	return isObj(v) && id(v.device) && day(v.on) && (v.failed === null || typeof v.failed === 'boolean');
}

const numberOrNull = (v: unknown) => v === null || (typeof v === 'number' && Number.isFinite(v));

function keptPointFits(p: unknown): boolean {
	return Array.isArray(p) && p.length === 6 && id(p[0]) && day(p[1]) && typeof p[2] === 'number' && Number.isFinite(p[2]) && text(p[3]) && numberOrNull(p[4]) && numberOrNull(p[5]);
}

const keptResultFits = (r: unknown) => Array.isArray(r) && r.length === 2 && id(r[0]) && day(r[1]);

export function measurementSeriesFits(v: unknown): boolean {
	return isObj(v) && optional(v.failedOn, day) && optional(v.failedId, id) && optional(v.results, (rs) => Array.isArray(rs) && rs.every(keptResultFits)) && optional(v.backfilled, (b) => typeof b === 'boolean') && isObj(v.steps) && Object.values(v.steps).every((points) => Array.isArray(points) && points.every(keptPointFits));
}
