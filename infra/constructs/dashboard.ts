import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { EMAILS_SENT_METRIC, METRICS_NAMESPACE, RUN_COMPLETED_METRIC } from '../../lambdas/handlers/metricNames';
import { EMAIL_SERVICE } from './emailAlerts';
import { POLLER_SERVICE, type PollerName } from './pollers';

/** What the due-date history poller publishes each complete run (lambdas/pollers/dueDates.ts). */
export const COMPLIANCE_METRICS = {
	overdue: 'OverdueDevices',
	dueWithin30Days: 'DueWithin30Days',
	onTimeThisMonth: 'OnTimeRateThisMonth',
	onTimeLastMonth: 'OnTimeRateLastMonth',
} as const;

export interface ComplianceDashboardProps {
	environment: 'sandbox' | 'production';
	pollers: Record<PollerName, lambda.IFunction>;
	/** The e-mail functions (collector, digest, report, notices): their EmailsSent metric. */
	emailFunctions: lambda.IFunction[];
	/** Several accounts: each account's figures, by its id (one account's figures are not the deployment's). */
	accounts?: string[];
}

/**
 * One CloudWatch dashboard for the people who answer to auditors and for whoever runs the stack:
 * overdue now, due within 30 days, the on-time rate of this and last month (the due-date history
 * poller's metrics), poll runs and failed runs per poller, and e-mails sent.
 */
export class ComplianceDashboard extends Construct {
	readonly dashboard: cloudwatch.Dashboard;

	constructor(scope: Construct, id: string, props: ComplianceDashboardProps) {
		super(scope, id);
		const accounts = props.accounts && props.accounts.length > 1 ? props.accounts : [undefined];
		const compliance = (metricName: string, label: string) =>
			accounts.map(
				(account) =>
					new cloudwatch.Metric({
						namespace: METRICS_NAMESPACE,
						metricName,
						dimensionsMap: { service: POLLER_SERVICE, poller: 'dueDates', ...(account ? { account } : {}) },
						statistic: 'Maximum',
						period: Duration.hours(1),
						label: account ? `${account}: ${label}` : label,
					}),
			);
		const pollers = Object.entries(props.pollers) as Array<[PollerName, lambda.IFunction]>;
		const runs = pollers.map(([poller]) => new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: RUN_COMPLETED_METRIC, dimensionsMap: { service: POLLER_SERVICE, poller }, statistic: 'Sum', period: Duration.hours(1), label: poller }));
		const failed = pollers.map(([poller, fn]) => fn.metricErrors({ statistic: 'Sum', period: Duration.hours(1), label: poller }));
		const emails = new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: EMAILS_SENT_METRIC, dimensionsMap: { service: EMAIL_SERVICE }, statistic: 'Sum', period: Duration.days(1), label: 'E-mails sent' });

		this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
			dashboardName: `${Stack.of(this).stackName}-${props.environment}-compliance`,
			defaultInterval: Duration.days(30),
			widgets: [
				[
					new cloudwatch.SingleValueWidget({
						title: 'Calibration now',
						metrics: [...compliance(COMPLIANCE_METRICS.overdue, 'Overdue now'), ...compliance(COMPLIANCE_METRICS.dueWithin30Days, 'Due within 30 days')],
						width: 12,
						height: 4,
					}),
					new cloudwatch.SingleValueWidget({
						title: 'Tested by the due date',
						metrics: [...compliance(COMPLIANCE_METRICS.onTimeThisMonth, 'On time this month (%)'), ...compliance(COMPLIANCE_METRICS.onTimeLastMonth, 'On time last month (%)')],
						width: 12,
						height: 4,
					}),
				],
				[
					new cloudwatch.GraphWidget({
						title: 'Overdue and due within 30 days',
						left: [...compliance(COMPLIANCE_METRICS.overdue, 'Overdue'), ...compliance(COMPLIANCE_METRICS.dueWithin30Days, 'Due within 30 days')],
						width: 12,
						height: 6,
					}),
					new cloudwatch.GraphWidget({
						title: 'On-time rate (%)',
						left: [...compliance(COMPLIANCE_METRICS.onTimeThisMonth, 'This month'), ...compliance(COMPLIANCE_METRICS.onTimeLastMonth, 'Last month')],
						leftYAxis: { min: 0, max: 100 },
						width: 12,
						height: 6,
					}),
				],
				[
					new cloudwatch.GraphWidget({ title: 'Poll runs completed (per hour)', left: runs, width: 8, height: 6, stacked: true }),
					new cloudwatch.GraphWidget({ title: 'Failed poll runs (Lambda errors, per hour)', left: failed, width: 8, height: 6, stacked: true }),
					new cloudwatch.GraphWidget({ title: 'E-mails sent (per day)', left: [emails], width: 8, height: 6 }),
				],
			],
		});
	}
}
