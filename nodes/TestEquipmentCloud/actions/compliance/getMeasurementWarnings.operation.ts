import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { DEFAULT_WARNING_DAYS, DEFAULT_WARNING_THRESHOLD, checkDays, checkThreshold, readMeasurementWarnings } from '../../../../client';
import { limitProperty, requestOptions, returnAllProperty } from '../common/list.description';
import { clock } from '../../transport';
import { clientFor } from '../common/utils';
import { MEASUREMENT_RULES, hintSkipped, measurementSkipParts } from '../common/skipped';

const properties: INodeProperties[] = [
	{
		displayName: 'Days',
		name: 'days',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 3660 },
		default: DEFAULT_WARNING_DAYS,
		description: "The passed results read: those dated in the last N days, today (in the workflow's time zone) included",
	},
	{
		displayName: 'Threshold',
		name: 'threshold',
		type: 'number',
		typeOptions: { minValue: 0.01, maxValue: 1, numberPrecision: 2 },
		default: DEFAULT_WARNING_THRESHOLD,
		description: 'The share of its limit at or above which a measured value is a warning (0.8 = 80 %: value ÷ upper limit, or lower limit ÷ value)',
	},
	{ ...returnAllProperty, description: 'Whether to return every warning or only up to a given limit (the newest results first; fewer results read)' },
	{ ...limitProperty, description: 'Max number of warnings to return' },
	...requestOptions(),
];

export const description = updateDisplayOptions({ show: { resource: ['compliance'], operation: ['getMeasurementWarnings'] } }, properties);

/**
 * The measured values near their limits: the passed results of the last N days, each one's
 * detail read (one request each, paced by the client), one item per result and measured step at
 * or above the threshold, with the device's trend and its predicted limit day where there is one.
 */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const days = checkDays(this.getNodeParameter('days', i, DEFAULT_WARNING_DAYS), 'Days');
	const threshold = checkThreshold(this.getNodeParameter('threshold', i, DEFAULT_WARNING_THRESHOLD), 'Threshold');
	const returnAll = this.getNodeParameter('returnAll', i, false) === true;
	const limit = returnAll ? undefined : Number(this.getNodeParameter('limit', i, 50));
	const client = await clientFor(this, i);
	const read = await readMeasurementWarnings(client, { days, threshold, limit, now: clock.now, timeZone: this.getTimezone() });
	const run = { from: read.from, today: read.today, threshold, ...read.counts };
	hintSkipped(this, measurementSkipParts(read.counts), MEASUREMENT_RULES);
	return read.warnings.map((w) => ({ json: { ...w, run } as unknown as IDataObject, pairedItem: { item: i } }));
}
