import * as z from 'zod/v4-mini';
import type { DueEntry, MeasurementWarningItem } from '../../client';
import { eventSchemas, type DueDevice, type OverdueDevice } from '../events/schemas';
import { once } from '../once';
import { dueHistoryFits, measurementSeriesFits, testRecordFits } from './stateFits';

/**
 * What the pollers keep in the state store: one namespace and one schema per thing they remember.
 * The pollers write these shapes; both stores check what they read against them (the `npm start`
 * file when it is opened, DynamoDB items when they are read), so a wrong shape is refused naming
 * the place and the fault, never read as "nothing stored". Objects are loose: a field a newer
 * version adds is accepted, and no shape a released version wrote may stop being accepted.
 */

/**
 * The schemas, built by the first item checked, not while a function loads (eventSchemas in
 * lambdas/events/schemas.ts says why).
 */
export const stateSchemas = once(() => {
	const finite = z.number().check(z.refine(Number.isFinite, 'expected a finite number'));
	const wholeFrom = (min: number) => z.number().check(z.int(), z.gte(min));
	const calendarDay = z
		.string()
		.check(z.refine((v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v), 'expected a calendar date written YYYY-MM-DD'));

	/** A device as it went out in an event (its event schema checked it then): only its id is checked again. */
	const announcedDevice = z.looseObject({ id: wholeFrom(1) }) as unknown as z.ZodMiniType<OverdueDevice>;

	// ---- overdue devices poller ------------------------------------------------------------------------

	/** Per device (key: its id): the overdue episode it is in, or was last in. */
	const DeviceState = z.looseObject({
		overdue: z.boolean(),
		/** How many times the device entered the overdue list. */
		episode: wholeFrom(1),
		/** When this episode began (ms). */
		since: finite,
		/** Reminders sent in this episode. */
		reminders: wholeFrom(0),
		/** Announced but not yet in a digest that was published. */
		digestPending: z.boolean(),
		device: announcedDevice,
		/** The run (ClockMark.run) that last wrote `device`: a page remembered before it is read again. */
		run: z.optional(wholeFrom(1)),
	});

	/**
	 * A page of the overdue list read and handled in full (key: the offset of its first item;
	 * pageMemory.ts): its text's digest, its items' keys, where the list goes on, the service's
	 * today its records showed, and the run (ClockMark.run) and time it was read or recalled.
	 */
	const KnownPage = z.looseObject({
		digest: z.string(),
		keys: z.array(wholeFrom(1)),
		shape: z.enum(['array', 'envelope']),
		next: z.optional(z.nullable(z.string())),
		count: z.optional(wholeFrom(0)),
		serviceToday: z.optional(calendarDay),
		run: wholeFrom(1),
		at: finite,
	});

	/** The newest time a run has stamped (clock sanity, see stampTime), and the number of the latest run; key: the poller. */
	const ClockMark = z.looseObject({ at: finite, run: z.optional(wholeFrom(1)) });

	// ---- due-soon poller ---------------------------------------------------------------------------------

	/** Per device (key: its id): the due date and the smallest lead stage announced for it. */
	const DueSoonState = z.looseObject({
		/** The next test date the stages were announced for. */
		due: calendarDay,
		/** Smallest stage announced for `due` (days). */
		stage: wholeFrom(0),
		/** Set when a complete scan no longer found the device in the window: forgotten. */
		dropped: z.optional(z.boolean()),
		/** The device as last read (customer, department, due date): what the digest routes and shows. */
		device: z.optional(z.looseObject({ id: wholeFrom(1) }) as unknown as z.ZodMiniType<Omit<DueDevice, 'daysLeft'>>),
	});

	/** The latest service day a run has seen (key `today`): a clock set back never re-opens a stage. */
	const DueSoonClock = z.looseObject({ day: calendarDay });

	// ---- test results poller -------------------------------------------------------------------------------

	/** Where reading the uploads has got to (key `testResults`). */
	const ResultsCursor = z.looseObject({
		/** Every result uploaded before (syncedAt − SETTLE_MS) has been read; null = the account had none. */
		syncedAt: z.optional(z.nullable(finite)),
		/** Results uploaded within SETTLE_MS before syncedAt: [id, synced ms]. */
		boundary: z.optional(z.array(z.tuple([wholeFrom(1), finite]))),
		/** Earlier versions: the calendar day up to which results were read by test date. */
		watermark: z.optional(calendarDay),
	});

	/** A result already announced (key: its id): by upload time, or by test date as earlier versions stored it. */
	const SeenResult = z.union([z.looseObject({ synced: finite }), z.looseObject({ testDate: z.string() })]);

	/** A failed result whose evidence (its detail) is still to be read (key: its id). */
	const PendingEvidence = z.looseObject({
		recorded: eventSchemas().TestResultRecordedDetail.shape.data,
		attempts: wholeFrom(0),
		done: z.optional(z.boolean()),
	});

	/** Per device (key: its id): its latest passed results and their measured values per step (client/measurementSeries.ts). */
	const nullableNumber = z.nullable(finite);
	const KeptPoint = z.tuple([wholeFrom(1), calendarDay, finite, z.nullable(z.string()), nullableNumber, nullableNumber]);
	const MeasurementSeries = z.looseObject({
		failedOn: z.optional(calendarDay),
		failedId: z.optional(wholeFrom(1)),
		results: z.optional(z.array(z.tuple([wholeFrom(1), calendarDay]))),
		steps: z.record(z.string(), z.array(KeptPoint)),
		backfilled: z.optional(z.boolean()),
	});

	/** A passed result whose measured values are still to be read (key: its id; pollers/measuredAlerts.ts). */
	const PendingMeasurement = z.looseObject({
		recorded: eventSchemas().TestResultRecordedDetail.shape.data,
		attempts: wholeFrom(0),
		done: z.optional(z.boolean()),
		/** Its device's kept values as they stood for it when it was deferred (uploaded before it): what its retry fits it to. */
		series: z.optional(MeasurementSeries),
		/** Earlier versions: its device's kept results then; a retry fits it without those kept since (neither: the kept values now). */
		keptBefore: z.optional(z.array(wholeFrom(1))),
	});

	/**
	 * A measured-value warning the results poller announced (key: result id and step, email/warnings.ts
	 * `warningKey`; pollers/measuredAlerts.ts): the row the digest and the monthly report show.
	 */
	const RecordedWarning = z.looseObject({
		testResultId: wholeFrom(1),
		testDate: calendarDay,
		device: z.looseObject({ id: wholeFrom(1) }),
		step: z.string(),
		value: finite,
		limitUsed: finite,
		nearLimit: z.boolean(),
		testEarlier: z.boolean(),
		/** The day the poller announced it (YYYY-MM-DD, the service's time zone is not known: UTC). */
		announcedOn: calendarDay,
	}) as unknown as z.ZodMiniType<RecordedWarningValue>;

	/** How far the first run's backfill of measured values has got (key `backfill`; pollers/measurementBackfill.ts). */
	const BackfillState = z.looseObject({
		/** Devices handled, in the device list's order: the next run reads the list from here (less an overlap). */
		offset: wholeFrom(0),
		/** The id of the device at `offset`, looked for there on resuming (an earlier version saved none). */
		lastId: z.optional(wholeFrom(1)),
		/** The device read and being written: a run that dies after writing its values leaves it here, and the next counts it. */
		inHand: z.optional(wholeFrom(1)),
		devicesDone: wholeFrom(0),
		/** The device list's count when the backfill began; null when the service gave none. */
		devicesTotal: z.nullable(wholeFrom(0)),
		detailsRead: wholeFrom(0),
		requests: wholeFrom(0),
		startedOn: calendarDay,
		/** The day it finished; it runs once. */
		done: z.optional(calendarDay),
	});

	// ---- due-date history (compliance) -------------------------------------------------------------------

	const nullableText = z.nullable(z.string());
	const nullableId = z.nullable(wholeFrom(1));

	/** One due date of the device (client/compliance.ts, DueEntry, without the device id: the key). */
	const StoredDueEntry = z.looseObject({
		due: calendarDay,
		openedOn: calendarDay,
		firstSeenOverdue: z.boolean(),
		outcome: z.enum(['open', 'tested', 'deleted', 'moved']),
		closedOn: z.optional(calendarDay),
		testedOn: z.optional(calendarDay),
		/** Rebuilt from the account's test results (pollers/rebuild.ts), not recorded while watching. */
		rebuilt: z.optional(z.literal(true)),
		/** The device's customer and department as of the due date. */
		customerId: nullableId,
		customerName: nullableText,
		department: nullableText,
	});

	/** Per device (key: its id): how it was last seen, and its due dates of the last 25 months and more. */
	const DueHistory = z.looseObject({
		device: z.looseObject({
			customerId: nullableId,
			customerName: nullableText,
			department: nullableText,
			designation: nullableText,
			nextTestDate: z.nullable(calendarDay),
			lastTestedDate: z.nullable(calendarDay),
			/** The newest test date the test-results poller had reported when the device was last seen. */
			lastResultDate: z.optional(z.nullable(calendarDay)),
			seenOn: calendarDay,
			/** Set when a complete scan no longer listed the device. */
			deletedOn: z.optional(calendarDay),
			/** Its test interval in months (when usable) and the day it was created, as last seen. */
			testIntervalMonths: z.optional(z.nullable(wholeFrom(1))),
			createdOn: z.optional(z.nullable(calendarDay)),
		}),
		entries: z.array(StoredDueEntry),
	});

	/** The newest test date of a device's uploaded results (key: the device id), as the test-results poller read them. */
	const LatestResult = z.looseObject({ testDate: calendarDay });

	/**
	 * One test result (key: its id), kept for the failure rates and the rebuild of the history: its
	 * device, test date and whether it failed (null: a status this version does not know). Written by
	 * the test-results poller as it reads uploads and by the rebuild as it reads the past.
	 */
	const TestRecord = z.looseObject({ device: wholeFrom(1), on: calendarDay, failed: z.nullable(z.boolean()) });

	/** How far the rebuild of the due-date history has read (key `rebuild`). */
	const RebuildState = z.looseObject({
		/** The first test date read (the history's retention plus the longest interval back). */
		since: calendarDay,
		startedOn: calendarDay,
		/** Every result with a smaller id has been read. */
		afterId: wholeFrom(0),
		resultsRead: wholeFrom(0),
		/** The day the histories were rebuilt; the rebuild runs once. */
		done: z.optional(calendarDay),
		/** What the rebuild refused, by rule (client/rebuild.ts), and results of devices it does not know. */
		skipped: z.optional(z.record(z.string(), wholeFrom(0))),
	});

	/**
	 * The recycle bin's device entries (key `bin`), the scrapped devices the monthly report's failure
	 * rates count: read by the due-date poller (lambdas/pollers/scrapped.ts); `devices` null when the
	 * token may not read the bin (413); `failed` when its last read failed otherwise and no whole bin
	 * was kept (the report then does not blame the token). Kept in `parts` stamped `readAt`
	 * (ScrappedBinPart); an earlier version kept them whole in `devices`.
	 */
	const ScrappedDevices = z.array(z.object({ deviceId: wholeFrom(1), designation: z.nullable(z.string()), deletedOn: calendarDay }));
	const ScrappedBin = z.looseObject({
		readOn: calendarDay,
		from: calendarDay,
		devices: z.optional(z.nullable(ScrappedDevices)),
		parts: z.optional(wholeFrom(0)),
		readAt: z.optional(finite),
		failed: z.optional(z.literal(true)),
	});
	/** One part of the bin (keys 1…n), at most SCRAPPED_PART_BYTES of entries. */
	const ScrappedBinPart = z.looseObject({ readAt: finite, devices: ScrappedDevices });

	return { DeviceState, KnownPage, ClockMark, DueSoonState, DueSoonClock, ResultsCursor, SeenResult, PendingEvidence, PendingMeasurement, MeasurementSeries, RecordedWarning, BackfillState, StoredDueEntry, DueHistory, LatestResult, TestRecord, RebuildState, ScrappedBin, ScrappedBinPart };
});
type StateSchemas = ReturnType<typeof stateSchemas>;
export type DeviceState = z.infer<StateSchemas['DeviceState']>;
export type ClockMark = z.infer<StateSchemas['ClockMark']>;
export type KnownPage = z.infer<StateSchemas['KnownPage']>;
export type DueSoonState = z.infer<StateSchemas['DueSoonState']>;
export type DueSoonClock = z.infer<StateSchemas['DueSoonClock']>;
export type ResultsCursor = z.infer<StateSchemas['ResultsCursor']>;
export type SeenResult = z.infer<StateSchemas['SeenResult']>;
export type PendingEvidence = z.infer<StateSchemas['PendingEvidence']>;
export type PendingMeasurement = z.infer<StateSchemas['PendingMeasurement']>;
export type MeasurementSeries = z.infer<StateSchemas['MeasurementSeries']>;
export type BackfillState = z.infer<StateSchemas['BackfillState']>;
export type StoredDueEntry = z.infer<StateSchemas['StoredDueEntry']>;
export type DueHistory = z.infer<StateSchemas['DueHistory']>;
export type LatestResult = z.infer<StateSchemas['LatestResult']>;
export type TestRecord = z.infer<StateSchemas['TestRecord']>;
export type ScrappedBin = z.infer<StateSchemas['ScrappedBin']>;
export type ScrappedBinPart = z.infer<StateSchemas['ScrappedBinPart']>;
export type RebuildState = z.infer<StateSchemas['RebuildState']>;

/** Every due entry of the stored histories, as the compliance figures read them. */
export function dueEntries(histories: Iterable<{ key: string; value: DueHistory }>): DueEntry[] {
	const out: DueEntry[] = [];
	for (const { key, value } of histories) for (const e of value.entries) out.push(toDueEntry(Number(key), e));
	return out;
}

/** One stored entry as the compliance figures read it. */
export function toDueEntry(deviceId: number, e: StoredDueEntry): DueEntry {
	return {
		deviceId,
		due: e.due,
		openedOn: e.openedOn,
		firstSeenOverdue: e.firstSeenOverdue,
		outcome: e.outcome,
		...(e.closedOn ? { closedOn: e.closedOn } : {}),
		...(e.testedOn ? { testedOn: e.testedOn } : {}),
		...(e.rebuilt ? { rebuilt: true as const } : {}),
		customerId: e.customerId,
		customerName: e.customerName,
		department: e.department,
	};
}

/** A warning row as the results poller records it: the row, and the day it was announced. */
export type RecordedWarningValue = MeasurementWarningItem & { announcedOn: string };

// ---- the namespaces ------------------------------------------------------------------------------------

/** The environment, or `environment:account` for an account of several (keyScope in context.ts). */
type Scope = string;

/** The namespace of each thing, per service environment and account. */
export const NS = {
	overdue: (env: Scope) => `overdue:${env}`,
	overdueClock: (env: Scope) => `clock:${env}`,
	overduePages: (env: Scope) => `overduePages:${env}`,
	dueSoon: (env: Scope) => `dueSoon:${env}`,
	dueSoonClock: (env: Scope) => `dueSoonClock:${env}`,
	seenResults: (env: Scope) => `results:${env}`,
	resultsCursor: (env: Scope) => `cursor:${env}`,
	failedEvidence: (env: Scope) => `failedEvidence:${env}`,
	measurementPending: (env: Scope) => `measurementPending:${env}`,
	measurements: (env: Scope) => `measurements:${env}`,
	measurementBackfill: (env: Scope) => `measurementBackfill:${env}`,
	measurementWarnings: (env: Scope) => `measurementWarnings:${env}`,
	dueDates: (env: Scope) => `dueDates:${env}`,
	latestResult: (env: Scope) => `latestResult:${env}`,
	tests: (env: Scope) => `tests:${env}`,
	rebuild: (env: Scope) => `rebuild:${env}`,
	scrapped: (env: Scope) => `scrapped:${env}`,
	scrappedBin: (env: Scope) => `scrappedBin:${env}`,
} as const;

export interface StoredShape {
	/** `ids`: every key is an item id (a positive whole number). */
	keys: 'ids' | 'any';
	value: z.ZodMiniType;
	/** A quicker check accepting only what `value` accepts (stateFits.ts); what it refuses goes on to `value`. */
	fits?: (value: unknown) => boolean;
}

const shapes = once((): Array<[prefix: string, shape: StoredShape]> => {
	const { DeviceState, KnownPage, ClockMark, DueSoonState, DueSoonClock, SeenResult, ResultsCursor, PendingEvidence, PendingMeasurement, MeasurementSeries, RecordedWarning, BackfillState, DueHistory, LatestResult, TestRecord, RebuildState, ScrappedBin, ScrappedBinPart } = stateSchemas();
	return [
		['overdue:', { keys: 'ids', value: DeviceState }],
		['clock:', { keys: 'any', value: ClockMark }],
		['overduePages:', { keys: 'any', value: KnownPage }],
		['dueSoon:', { keys: 'ids', value: DueSoonState }],
		['dueSoonClock:', { keys: 'any', value: DueSoonClock }],
		['results:', { keys: 'ids', value: SeenResult }],
		['cursor:', { keys: 'any', value: ResultsCursor }],
		['failedEvidence:', { keys: 'ids', value: PendingEvidence }],
		['measurementPending:', { keys: 'ids', value: PendingMeasurement }],
		['measurements:', { keys: 'ids', value: MeasurementSeries, fits: measurementSeriesFits }],
		['measurementBackfill:', { keys: 'any', value: BackfillState }],
		['measurementWarnings:', { keys: 'any', value: RecordedWarning }],
		['dueDates:', { keys: 'ids', value: DueHistory, fits: dueHistoryFits }],
		['latestResult:', { keys: 'ids', value: LatestResult }],
		['tests:', { keys: 'ids', value: TestRecord, fits: testRecordFits }],
		['rebuild:', { keys: 'any', value: RebuildState }],
		['scrapped:', { keys: 'any', value: ScrappedBin }],
		['scrappedBin:', { keys: 'ids', value: ScrappedBinPart }],
	];
});

/** The shape stored under a namespace; undefined for namespaces the pollers do not own. */
export function storedShape(namespace: string): StoredShape | undefined {
	return shapes().find(([prefix]) => namespace.startsWith(prefix))?.[1];
}

export const isItemId = (key: string): boolean => /^[1-9]\d*$/.test(key);

/**
 * What is wrong with a stored item, naming the place inside its value (`v.field: …`); undefined
 * when it fits its namespace's shape or the namespace is not the pollers'.
 */
export function storedItemFault(namespace: string, key: string, value: unknown): string | undefined {
	const shape = storedShape(namespace);
	if (!shape) return undefined;
	if (shape.keys === 'ids' && !isItemId(key)) return 'the key is no item id (a positive whole number)';
	if (shape.fits?.(value)) return undefined;
	const checked = shape.value.safeParse(value);
	return checked.success ? undefined : describeIssues(checked.error, 'v');
}

/** The first few issues of a failed check, each as `path: message`. */
export function describeIssues(error: z.core.$ZodError, root: string): string {
	return error.issues
		.slice(0, 3)
		.map((i) => `${[root, ...i.path.map(String)].filter(Boolean).join('.') || 'the item'}: ${i.message}`)
		.join('; ');
}
