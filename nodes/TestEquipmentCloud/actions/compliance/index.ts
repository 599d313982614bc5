import type { INodeProperties } from 'n8n-workflow';
import { resourceDescription } from '../common/types';
import * as getFailureRates from './getFailureRates.operation';
import * as getForecast from './getForecast.operation';
import * as getIntervalRecommendations from './getIntervalRecommendations.operation';
import * as getSummary from './getSummary.operation';
import * as getMeasurementWarnings from './getMeasurementWarnings.operation';

export const operations = { getSummary, getFailureRates, getForecast, getIntervalRecommendations, getMeasurementWarnings };

export const description: INodeProperties[] = resourceDescription(
	'compliance',
	operations,
	{
		getMeasurementWarnings: {
			name: 'Get Measurement Warnings',
			description:
				'List the measured values of the passed tests of the last N days at or above a share of their limit (default 80 %), one item per result and step, with the predicted day the device’s trend reaches the limit; one request per result read',
			action: 'Get measurement warnings',
		},
		getSummary: {
			name: 'Get Summary',
			description:
				'Count devices, overdue devices and devices due within 30 days now, or a past month’s due dates tested on time, late or still overdue (rebuilt from the test results), for the account or per customer or department',
			action: 'Get a compliance summary',
		},
		getFailureRates: {
			name: 'Get Failure Rates',
			description:
				'Count tests and failed tests of the last 12 or 24 months per device type, department or customer, with the failure rate, its exact one-sided 95 % bounds and the devices’ intervals, marked below 2 % (95 % upper bound under 2 %), above 2 % (95 % lower bound over 2 %) or undecided with the tests still needed (DGUV V3): evidence for the employer’s choice of test intervals',
			action: 'Get failure rates',
		},
		getForecast: {
			name: 'Get Forecast',
			description:
				'Count the devices falling due in each of the next 12 months (the current one from today) and those overdue now, for the account or per customer or department: the workload of re-test visits ahead',
			action: 'Get a forecast of due tests',
		},
		getIntervalRecommendations: {
			name: 'Get Interval Recommendations',
			description:
				'Recommend a test interval per device type (or type within department) and current interval by NCSLI RP-1 method A3, the interval test: reliability target, change confidence, at most twice or half, within DGUV V3 Table 1B’s maximum; never applied, the employer decides',
			action: 'Get interval recommendations',
		},
	},
	'getSummary',
);
