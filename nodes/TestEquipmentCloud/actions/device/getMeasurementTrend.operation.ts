import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { TREND_CONFIDENCE, TREND_RESULTS, ValidationError, readMeasurementTrend } from '../../../../client';
import { requestOptions } from '../common/list.description';
import { deviceIdOf, recordLocator } from '../common/locators';
import { clientFor } from '../common/utils';
import { MEASUREMENT_RULES, hintSkipped, measurementSkipParts } from '../common/skipped';

const properties: INodeProperties[] = [
	{
		...recordLocator({ name: 'deviceId', displayName: 'Device', searchListMethod: 'searchDevices', placeholder: 'e.g. 1042', barcode: true }),
		description: 'The device whose measured values to follow',
	},
	{
		displayName: 'Results',
		name: 'results',
		type: 'number',
		typeOptions: { minValue: 3, maxValue: 50 },
		default: TREND_RESULTS,
		description: 'How many of the device’s latest passed results (since its latest failed one) the trend is fitted to; each is one request for its detail',
	},
	...requestOptions(),
];

export const description = updateDisplayOptions({ show: { resource: ['device'], operation: ['getMeasurementTrend'] } }, properties);

/**
 * One device's measured steps: per step its series, the least-squares fit, the one-sided 95 %
 * prediction bound and the day it reaches the limit, against the device's next due date.
 */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const results = Number(this.getNodeParameter('results', i, TREND_RESULTS));
	if (!(Number.isSafeInteger(results) && results >= 3 && results <= 50)) throw new ValidationError('Results', `must be a whole number from 3 to 50 (a trend needs 3), got ${JSON.stringify(results)}`);
	const client = await clientFor(this, i);
	const id = await deviceIdOf(this, 'deviceId', i, client);
	const read = await readMeasurementTrend(client, id, results);
	hintSkipped(this, measurementSkipParts(read.counts), MEASUREMENT_RULES);
	return read.steps.map((s) => {
		const { fit, points, ...trend } = s.trend;
		const json = {
			deviceId: s.deviceId,
			designation: read.device.designation,
			step: s.step,
			measurement: s.measurement,
			// The latest result's unit; each point carries its own (a series whose unit changes has no trend).
			unit: trend.unit,
			lowLimit: trend.lowLimit,
			highLimit: trend.highLimit,
			points: points.map((p) => ({ testResultId: p.testResultId, testDate: p.testDate, value: p.value, unit: p.unit, lowLimit: p.lowLimit, highLimit: p.highLimit })),
			sameDay: trend.sameDay,
			noTrend: trend.noTrend,
			fit: fit && { points: fit.points, slopePerDay: fit.slopePerDay, fittedAtLast: fit.fittedAtLast, residualSd: fit.residualSd, tQuantile: fit.tQuantile, confidence: TREND_CONFIDENCE },
			boundAtLast: trend.boundAtLast,
			predictedLimitDate: trend.predictedLimitDate,
			predictedLimitSide: trend.predictedLimitSide,
			nextTestDate: s.nextTestDate,
			testEarlier: s.testEarlier,
			resultsUsed: read.resultsUsed,
			skippedMeasurements: read.counts.skippedMeasurements,
		};
		return { json: json as unknown as IDataObject, pairedItem: { item: i } };
	});
}
