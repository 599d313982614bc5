import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
	NodeConnectionType,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { filtersFromParameter } from './actions/common/utils';
import { credentialTest, loadOptions } from './methods';
import { getClient, toNodeError, clock } from './transport';
import { DEFAULT_LOOKBACK_DAYS, properties } from './trigger/description';
import { EVENT_RESOURCE, isTriggerEvent } from './trigger/events';
import { fetchSample, pollEvent, type PollRun, type PollSettings } from './trigger/poll';
import { fingerprint, readState } from './trigger/state';

const main: NodeConnectionType[] = [NodeConnectionTypes.Main];

/** Share of n8n's poll budget spent paging before a long scan stops and leaves the rest for the next poll. */
const BUDGET_SHARE = 0.8;

const NOTHING_YET: Record<PollSettings['event'], string> = {
	deviceOverdue: 'No overdue device matches the trigger’s filters right now',
	testResultNew: 'No test result matches the trigger’s settings yet',
	projectUpdated: 'No project matches the trigger’s filters',
};

interface TriggerOptions {
	lookbackDays?: number;
	maxRetryWait?: number;
	timeout?: number;
	simplify?: boolean;
}

function readSettings(ctx: IPollFunctions): { settings: PollSettings; options: TriggerOptions } {
	const event = ctx.getNodeParameter('event');
	if (!isTriggerEvent(event)) {
		throw new NodeOperationError(ctx.getNode(), `The event "${String(event)}" is not supported`);
	}
	const options = ctx.getNodeParameter('options', {}) as TriggerOptions;
	const lookback = options.lookbackDays ?? DEFAULT_LOOKBACK_DAYS;
	if (!Number.isSafeInteger(lookback) || lookback < 0) {
		throw new NodeOperationError(ctx.getNode(), `Lookback (Days) must be a whole number of 0 or more, got ${String(lookback)}`);
	}
	return {
		options,
		settings: {
			event,
			filters: filtersFromParameter(ctx.getNodeParameter('filters', {}), EVENT_RESOURCE[event]),
			onlyFailed: event === 'testResultNew' && ctx.getNodeParameter('onlyFailed', false) === true,
			lookbackDays: lookback,
			simplify: event === 'deviceOverdue' && options.simplify === true,
		},
	};
}

export class TestEquipmentCloudTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Equipment Cloud Trigger',
		name: 'testEquipmentCloudTrigger',
		icon: { light: 'file:testEquipmentCloud.svg', dark: 'file:testEquipmentCloud.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ {"deviceOverdue": "Device overdue", "testResultNew": "New test result", "projectUpdated": "Project updated"}[$parameter["event"]] }}',
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
		try {
			const { settings, options } = readSettings(this);
			const client = await getClient(this, { maxRetryWaitSeconds: options.maxRetryWait, timeoutSeconds: options.timeout });
			// Settings that change what is watched start the memory over (from "now").
			const key = fingerprint({ event: settings.event, filters: settings.filters, onlyFailed: settings.onlyFailed });
			const started = clock.now();
			const budget = typeof this.getPollBudgetMs === 'function' ? this.getPollBudgetMs() : undefined;
			const run: PollRun = {
				client,
				settings,
				key,
				now: clock.now,
				deadline: budget !== undefined && Number.isFinite(budget) ? started + budget * BUDGET_SHARE : undefined,
				onUnreadable: (position, reason) => this.logger.warn(`Skipped a record that cannot be read (position ${position}): ${reason}`),
			};

			if (this.getMode() === 'manual') {
				// "Fetch Test Event": a real record, new or not; the memory is neither read nor moved.
				const sample = await fetchSample(run);
				if (!sample) {
					throw new NodeOperationError(this.getNode(), `${NOTHING_YET[settings.event]}, so there is no sample to show`, {
						description: 'The trigger still fires when one appears. Loosen the filters to see a sample now.',
					});
				}
				return [this.helpers.returnJsonArray([sample])];
			}

			const staticData = this.getWorkflowStaticData('node');
			const previous = readState(staticData.cursor, settings.event, key);
			// Nothing is written before the poll has succeeded: a failed poll leaves the memory as
			// it was, and the next poll emits what this one would have.
			const outcome = await pollEvent(run, previous);
			if (JSON.stringify(staticData.cursor) !== JSON.stringify(outcome.state)) {
				staticData.cursor = outcome.state as unknown as IDataObject;
			}
			return outcome.items.length > 0 ? [this.helpers.returnJsonArray(outcome.items)] : null;
		} catch (error) {
			throw toNodeError(this.getNode(), error);
		}
	}
}
