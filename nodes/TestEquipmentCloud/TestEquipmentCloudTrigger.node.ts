import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
	NodeConnectionType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { filtersFromParameter, readFilterBuilder } from './shared/filters';
import { credentialTest, loadOptions } from './methods';
import { getClient, toNodeError, clock } from './transport';
import { DEFAULT_LOOKBACK_DAYS, properties } from './trigger/description';
import { EVENT_RESOURCE, isTriggerEvent } from './shared/events';
import { DEFAULT_LEAD_DAYS } from './trigger/events/deviceDueSoon';
import { MAX_STEP_TRIES, withFailedSteps } from './trigger/failedSteps';
import { fetchSample, pollEvent } from './trigger/poll';
import type { PollRun, PollSettings } from './trigger/run';
import { skippedMessage, startPoll } from './trigger/overlap';
import { fingerprint, recall } from './trigger/state';

const main: NodeConnectionType[] = [NodeConnectionTypes.Main];

/** Share of n8n's poll budget spent paging before a long scan stops and leaves the rest for the next poll. */
const BUDGET_SHARE = 0.8;

const NOTHING_YET: Record<PollSettings['event'], string> = {
	deviceOverdue: 'No overdue device matches the trigger’s filters right now',
	testResultNew: 'No test result matches the trigger’s settings yet',
	projectUpdated: 'No project matches the trigger’s filters',
	deviceDueSoon: 'No device matching the trigger’s filters is due within the lead time',
	testResultNearLimit: 'None of the newest passed test results has a measured step at or above the threshold',
	deviceMeasurementDrift: 'No measured drift to show: a drift needs three passed results of a device, which the trigger keeps as they arrive',
};

/** What "Fetch Test Event" looked at, for the log when nothing matched. */
function checked(settings: PollSettings): string {
	const parts = [`the ${EVENT_RESOURCE[settings.event]} list`];
	if (settings.filters.length > 0) parts.push(`${settings.filters.length} filter(s)`);
	if (settings.onlyFailed) parts.push('only failed results');
	return parts.join(' with ');
}

interface TriggerOptions {
	lookbackDays?: number;
	maxRetryWait?: number;
	timeout?: number;
	simplify?: boolean;
	leadDays?: number;
	includeFailedSteps?: boolean;
	threshold?: number;
}

/**
 * The trigger's filters, and their signature as earlier versions keyed the memory on it: version
 * 1's type-first filters as sent; from version 2 the property-first filters as set (relative days
 * unexpanded).
 */
async function readFilters(ctx: IPollFunctions, event: PollSettings['event']): Promise<{ filters: PollSettings['filters']; signature: unknown }> {
	if (ctx.getNode().typeVersion >= 2) return await readFilterBuilder(ctx, EVENT_RESOURCE[event]);
	const filters = filtersFromParameter(ctx.getNodeParameter('filters', {}), EVENT_RESOURCE[event]);
	return { filters, signature: filters };
}

/**
 * What the memory is keyed on: the parameters that decide what is watched, as written. An
 * expression is kept unresolved, so "older than {{ $today.minus({days: 300}) }}" keeps the memory
 * from one day to the next, as "Within the Last N Days" does.
 */
function writtenKey(ctx: IPollFunctions, event: PollSettings['event']): string {
	const written = (name: string, fallback: unknown): unknown => ctx.getNodeParameter(name, fallback, { rawExpressions: true });
	return fingerprint({
		event,
		filters: written('filters', {}),
		...(ctx.getNode().typeVersion >= 2 ? { filterJoin: written('filterJoin', 'AND') } : {}),
		onlyFailed: event === 'testResultNew' ? written('onlyFailed', false) : false,
		...(event === 'deviceDueSoon' ? { leadDays: (written('options', {}) as IDataObject).leadDays ?? DEFAULT_LEAD_DAYS } : {}),
	});
}

const DROPPED = {
	settings: 'the settings that decide what it watches changed (event, filters, Only Failed Results or Lead Time)',
	unreadable: 'its stored memory could not be read',
};

async function readSettings(ctx: IPollFunctions): Promise<{ settings: PollSettings; options: TriggerOptions; filterSignature: unknown }> {
	const event = ctx.getNodeParameter('event');
	if (!isTriggerEvent(event)) {
		throw new NodeOperationError(ctx.getNode(), `The event "${String(event)}" is not supported`);
	}
	const options = ctx.getNodeParameter('options', {}) as TriggerOptions;
	const lookback = options.lookbackDays ?? DEFAULT_LOOKBACK_DAYS;
	if (!Number.isSafeInteger(lookback) || lookback < 0) {
		throw new NodeOperationError(ctx.getNode(), `Lookback (Days) must be a whole number of 0 or more, got ${String(lookback)}`);
	}
	const leadDays = options.leadDays ?? DEFAULT_LEAD_DAYS;
	if (!Number.isSafeInteger(leadDays) || leadDays < 0 || leadDays > 3650) {
		throw new NodeOperationError(ctx.getNode(), `Lead Time (Days) must be a whole number from 0 to 3650, got ${String(leadDays)}`);
	}
	const threshold = options.threshold ?? 0.8;
	if (event === 'testResultNearLimit' && !(typeof threshold === 'number' && threshold > 0 && threshold <= 1)) {
		throw new NodeOperationError(ctx.getNode(), `Threshold must be a share of the limit above 0 and at most 1 (0.8 for 80 %), got ${String(threshold)}`);
	}
	const { filters, signature } = await readFilters(ctx, event);
	return {
		options,
		filterSignature: signature,
		settings: {
			event,
			filters,
			onlyFailed: event === 'testResultNew' && ctx.getNodeParameter('onlyFailed', false) === true,
			lookbackDays: lookback,
			simplify: event === 'deviceOverdue' && options.simplify === true,
			...(event === 'deviceDueSoon' ? { leadDays } : {}),
			...(event === 'testResultNearLimit' ? { threshold } : {}),
		},
	};
}

export class TestEquipmentCloudTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Equipment Cloud Trigger',
		name: 'testEquipmentCloudTrigger',
		icon: { light: 'file:testEquipmentCloud.svg', dark: 'file:testEquipmentCloud.dark.svg' },
		group: ['trigger'],
		// 2: Filters property first (type inferred), date picker and days from today.
		version: [1, 2],
		defaultVersion: 2,
		subtitle: '={{ {"deviceOverdue": "Device overdue", "testResultNew": "New test result", "projectUpdated": "Project updated", "deviceDueSoon": "Device due soon", "testResultNearLimit": "Test result near limit", "deviceMeasurementDrift": "Device measurement drift"}[$parameter["event"]] }}',
		description: 'Starts the workflow when a device becomes overdue, a test result is uploaded or a project changes in Test Equipment Cloud',
		defaults: { name: 'Test Equipment Cloud Trigger' },
		polling: true,
		inputs: [],
		outputs: main,
		credentials: [{ name: 'testEquipmentCloudApi', required: true, testedBy: 'testEquipmentCloudApiTest' }],
		properties,
	};

	methods = { loadOptions, credentialTest };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		// "Fetch Test Event" never waits for an active poll; active polls run one at a time per node.
		if (this.getMode() === 'manual') return await pollOnce(this);
		const node = this.getNode();
		const guard = startPoll(`${String(this.getWorkflow().id ?? '')}/${node.id ?? node.name}`, clock.now());
		if ('busySince' in guard) {
			this.logger.warn(skippedMessage(node.name, guard.busySince, clock.now()), { workflowId: this.getWorkflow().id, nodeName: node.name });
			return null;
		}
		try {
			return await pollOnce(this);
		} finally {
			guard.finish();
		}
	}
}

/** One poll: the new items (null when none), the memory moved only after success. */
async function pollOnce(ctx: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	try {
		const { settings, options, filterSignature } = await readSettings(ctx);
		const client = await getClient(ctx, { maxRetryWaitSeconds: options.maxRetryWait, timeoutSeconds: options.timeout });
		// Settings that change what is watched start the memory over (from "now").
		const key = writtenKey(ctx, settings.event);
		// Earlier versions keyed it on the resolved filters: such a memory is still taken up.
		const legacyKey = fingerprint({ event: settings.event, filters: filterSignature, onlyFailed: settings.onlyFailed, ...(settings.leadDays === undefined ? {} : { leadDays: settings.leadDays }) });
		const failedSteps = settings.event === 'testResultNew' && options.includeFailedSteps === true;
		const started = clock.now();
		const budget = typeof ctx.getPollBudgetMs === 'function' ? ctx.getPollBudgetMs() : undefined;
		const run: PollRun = {
			client,
			settings,
			key,
			now: clock.now,
			timeZone: ctx.getTimezone(),
			deadline: budget !== undefined && Number.isFinite(budget) ? started + budget * BUDGET_SHARE : undefined,
			onUnreadable: (position, reason) => ctx.logger.warn(`Skipped a record that cannot be read (position ${position}): ${reason}`),
			onIncomplete: (reason, detail) =>
				ctx.logger.warn(`The list was not read to its end (${reason}: ${detail}); this poll announces nothing that needs the whole list`),
			onWarning: (message) => ctx.logger.warn(message),
			onHeldBack: (id, tries, reason) => ctx.logger.warn(`Test result ${id}: its measured values could not be read (${reason}); held back, try ${tries}, the next poll tries again`),
		};

		if (ctx.getMode() === 'manual') {
			// "Fetch Test Event": a real record, new or not; the memory is neither read nor moved.
			const sample = await fetchSample(run);
			if (!sample) {
				// Not an error: n8n shows its usual "no data" hint; the log says what was checked.
				ctx.logger.info(`${NOTHING_YET[settings.event]} (checked ${checked(settings)}); the trigger still fires when one appears`, {
					nodeName: ctx.getNode().name,
				});
				return null;
			}
			return [ctx.helpers.returnJsonArray(failedSteps ? (await withFailedSteps(client, [sample], { maxTries: 1 })).items : [sample])];
		}

		const staticData = ctx.getWorkflowStaticData('node');
		const { state: previous, dropped } = recall(staticData.cursor, settings.event, key, legacyKey);
		if (dropped) {
			ctx.logger.info(
				`The memory of "${ctx.getNode().name}" starts over: ${DROPPED[dropped]}. This poll remembers what is there now and emits nothing; later polls emit what is new.`,
				{ workflowId: ctx.getWorkflow().id, nodeName: ctx.getNode().name },
			);
		}
		// Nothing is written before the poll has succeeded: a failed poll leaves the memory as
		// it was, and the next poll emits what this one would have.
		const outcome = await pollEvent(run, previous);
		const pending = previous?.event === 'testResultNew' ? previous.pending : undefined;
		if (failedSteps && outcome.state.event === 'testResultNew') {
			const steps = await withFailedSteps(client, outcome.items, {
				pending,
				once: await getClient(ctx, { maxRetryWaitSeconds: 0, timeoutSeconds: options.timeout }),
				onHeldBack: (id, tries, reason) =>
					ctx.logger.warn(`Test result ${id}: its failed steps could not be read (${reason}); held back, try ${tries} of ${MAX_STEP_TRIES}, the next poll tries again`),
				onGivenUp: (id, reason) =>
					ctx.logger.warn(`Test result ${id}: its failed steps could not be read in ${MAX_STEP_TRIES} polls (${reason}); emitted without them (steps_unavailable)`),
			});
			outcome.items = steps.items;
			if (Object.keys(steps.pending).length > 0) outcome.state.pending = steps.pending;
		} else if (pending) {
			// Include Failed Steps was switched off: what was held back goes out as it is.
			outcome.items = [...Object.values(pending).map((p) => p.record), ...outcome.items];
		}
		if (JSON.stringify(staticData.cursor) !== JSON.stringify(outcome.state)) {
			staticData.cursor = outcome.state as unknown as IDataObject;
		}
		return outcome.items.length > 0 ? [ctx.helpers.returnJsonArray(outcome.items)] : null;
	} catch (error) {
		throw toNodeError(ctx.getNode(), error);
	}
}
