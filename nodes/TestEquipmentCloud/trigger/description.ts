import type { INodeProperties } from 'n8n-workflow';
import { filterBuilder, filtersCollection } from '../shared/filters.description';
import { maxRetryWaitOption, simplifyOption, timeoutOption } from '../shared/options';

export const DEFAULT_LOOKBACK_DAYS = 7;

/** The trigger's parameters, in the order the form shows them. */
export const properties: INodeProperties[] = [
	{
		displayName: 'Event',
		name: 'event',
		type: 'options',
		noDataExpression: true,
		required: true,
		options: [
			{
				name: 'Device Due Soon',
				value: 'deviceDueSoon',
				description: 'A device’s next test date is within the lead time (once per device and due date)',
			},
			{
				name: 'Device Measurement Drift',
				value: 'deviceMeasurementDrift',
				description:
					'A new passed result’s measured values continue a trend whose 95 % prediction bound reaches the limit before the device’s next due date (one item per result and step)',
			},
			{
				name: 'Device Overdue',
				value: 'deviceOverdue',
				description: 'A device entered the overdue list (its next test date has passed)',
			},
			{
				name: 'New Test Result',
				value: 'testResultNew',
				description: 'A test result was uploaded, also when the equipment uploads it days after the test',
			},
			{
				name: 'Project Updated',
				value: 'projectUpdated',
				description: 'A project changed (its last change time advanced)',
			},
			{
				name: 'Test Result Near Limit',
				value: 'testResultNearLimit',
				description: 'A new passed result has a measured step at or above a share of its limit (one item per result and step)',
			},
		],
		default: 'deviceOverdue',
	},
	{
		displayName: 'Only Failed Results',
		name: 'onlyFailed',
		type: 'boolean',
		default: false,
		description: 'Whether to trigger only on results whose status is failed',
		displayOptions: { show: { event: ['testResultNew'] } },
	},
	// Version 1: a filter type first (saved workflows keep it); from version 2 the property first.
	{ ...filtersCollection('event'), displayOptions: { show: { '@version': [1] } } },
	...filterBuilder('event', { show: { '@version': [{ _cnd: { gte: 2 } }] } }),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Lookback (Days)',
				name: 'lookbackDays',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 365 },
				default: DEFAULT_LOOKBACK_DAYS,
				description:
					'How many days of uploads the first poll remembers without triggering. Results are followed by upload time, so each triggers once when it is uploaded, whatever its test date.',
				displayOptions: { show: { '/event': ['testResultNew', 'testResultNearLimit', 'deviceMeasurementDrift'] } },
			},
			{
				displayName: 'Threshold',
				name: 'threshold',
				type: 'number',
				typeOptions: { minValue: 0.01, maxValue: 1, numberPrecision: 2 },
				default: 0.8,
				description: 'Share of its limit (0.8 = 80 %) at or above which a measured step of a passed result triggers',
				displayOptions: { show: { '/event': ['testResultNearLimit'] } },
			},
			{
				displayName: 'Lead Time (Days)',
				name: 'leadDays',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 3650 },
				default: 30,
				description: 'Trigger when a device’s next test date is at most this many days away (0 = on the due date)',
				displayOptions: { show: { '/event': ['deviceDueSoon'] } },
			},
			{
				displayName: 'Include Failed Steps',
				name: 'includeFailedSteps',
				type: 'boolean',
				default: false,
				description: 'Whether failed results carry the steps that failed with their measured values and limits (one more request per failed result)',
				displayOptions: { show: { '/event': ['testResultNew'] } },
			},
			maxRetryWaitOption,
			timeoutOption,
			{ ...simplifyOption, displayOptions: { show: { '/event': ['deviceOverdue'] } } },
		],
	},
];
