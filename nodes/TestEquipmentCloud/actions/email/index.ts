import type { INodeProperties } from 'n8n-workflow';
import { resourceDescription } from '../common/types';
import * as complianceReport from './complianceReport.operation';
import * as customerNotices from './customerNotices.operation';
import * as digest from './digest.operation';
import * as failedTest from './failedTest.operation';

export const operations = { complianceReport, customerNotices, digest, failedTest };

export const description: INodeProperties[] = resourceDescription(
	'email',
	operations,
	{
		complianceReport: {
			name: 'Build Monthly Compliance Report',
			description:
				'One e-mail per recipient about a month that has ended: on-time rate and trend, late devices, failure rates, forecast, interval recommendations, devices out of line and measured values near their limit, with five CSV attachments (calibration compliance, failure rates, forecast, interval recommendations, devices out of line), or six CSV attachments in a month with measured values near their limit (measurement warnings), from the history rebuilt from the test results; ready for Send Email, Gmail or Outlook',
			action: 'Build monthly compliance report e-mails',
		},
		customerNotices: {
			name: 'Build Customer Re-Test Notices',
			description:
				'One e-mail per customer with devices due in a month (next month by default), in the customer’s language, listing them and those overdue, with a CSV of every device; ready for Send Email, Gmail or Outlook',
			action: 'Build customer re-test notice e-mails',
		},
		digest: {
			name: 'Build Daily Digests',
			description:
				'One e-mail per recipient: devices newly and still overdue, failed tests with their failing steps and limits, devices coming due, routed by customer and department; ready for Send Email, Gmail or Outlook',
			action: 'Build daily digest e-mails',
		},
		failedTest: {
			name: 'Build Failed-Test E-mails',
			description:
				'One e-mail per recipient of a failed test result (by default the incoming item’s), with its failing steps, measured values and limits, optionally the service’s PDF test report attached; ready for Send Email, Gmail or Outlook',
			action: 'Build failed test e-mails',
		},
	},
	'customerNotices',
);
