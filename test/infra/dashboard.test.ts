import * as lambda from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { COMPLIANCE_METRICS, ComplianceDashboard } from '../../infra/constructs/dashboard';
import { EMAILS_SENT_METRIC, METRICS_NAMESPACE, RUN_COMPLETED_METRIC } from '../../lambdas/handlers/metricNames';
import { ofType, synthConstruct, type Json } from './synth';

/** The dashboard with four stand-in poller functions and two e-mail functions, nothing else. */
const s = synthConstruct('DashboardOnly', (stack) => {
	const fn = (id: string) => new lambda.Function(stack, id, { code: lambda.Code.fromInline('exports.handler = async () => ({})'), handler: 'index.handler', runtime: lambda.Runtime.NODEJS_22_X });
	const pollers = { overdueDevices: fn('Overdue'), testResults: fn('Results'), dueSoon: fn('DueSoon'), dueDates: fn('DueDates') };
	return { pollers, dashboard: new ComplianceDashboard(stack, 'Dashboard', { environment: 'production', pollers, emailFunctions: [fn('Collector'), fn('Digest')] }) };
});

/** The dashboard body with each CloudFormation reference written as {Ref:<id>}. */
function body(): { widgets: Array<{ properties: { title: string; metrics: Json[][] } }> } {
	const [[, dashboard]] = ofType(s, 'AWS::CloudWatch::Dashboard');
	const parts = dashboard.Properties.DashboardBody['Fn::Join'][1] as Json[];
	return JSON.parse(parts.map((p) => (typeof p === 'string' ? p : `{Ref:${p.Ref ?? p['Fn::GetAtt']?.[0] ?? 'region'}}`)).join(''));
}
const metricsOf = (title: string) => body().widgets.find((w) => w.properties.title === title)!.properties.metrics;

describe('the compliance dashboard', () => {
	it('is one dashboard named after the stack and the environment, over 30 days', () => {
		const [[, d]] = ofType(s, 'AWS::CloudWatch::Dashboard');
		expect(d.Properties.DashboardName).toBe('DashboardOnly-production-compliance');
		expect(body()).toMatchObject({ start: '-P30D' });
	});

	it('overdue now, due within 30 days and the on-time rate of this and last month: the due-date poller’s metrics', () => {
		const dims = ['poller', 'dueDates', 'service', 'pollers'];
		expect(metricsOf('Calibration now')).toEqual([
			[METRICS_NAMESPACE, COMPLIANCE_METRICS.overdue, ...dims, expect.objectContaining({ label: 'Overdue now', stat: 'Maximum', period: 3600 })],
			[METRICS_NAMESPACE, COMPLIANCE_METRICS.dueWithin30Days, ...dims, expect.objectContaining({ label: 'Due within 30 days' })],
		]);
		expect(metricsOf('Tested by the due date').map((m) => m[1])).toEqual([COMPLIANCE_METRICS.onTimeThisMonth, COMPLIANCE_METRICS.onTimeLastMonth]);
		expect(metricsOf('On-time rate (%)').map((m) => m[1])).toEqual([COMPLIANCE_METRICS.onTimeThisMonth, COMPLIANCE_METRICS.onTimeLastMonth]);
	});

	it('poll runs (the heartbeat metric) and failed runs (Lambda errors) of every poller, and e-mails sent', () => {
		expect(metricsOf('Poll runs completed (per hour)').map((m) => [m[1], m[3]])).toEqual(['overdueDevices', 'testResults', 'dueSoon', 'dueDates'].map((p) => [RUN_COMPLETED_METRIC, p]));
		const failed = metricsOf('Failed poll runs (Lambda errors, per hour)');
		expect(failed.map((m) => [m[0], m[1], m[2]])).toEqual(Array.from({ length: 4 }, () => ['AWS/Lambda', 'Errors', 'FunctionName']));
		expect(failed.map((m) => m[3])).toEqual(['Overdue', 'Results', 'DueSoon', 'DueDates'].map((f) => `{Ref:${s.id(s.construct.pollers[({ Overdue: 'overdueDevices', Results: 'testResults', DueSoon: 'dueSoon', DueDates: 'dueDates' } as const)[f as 'Overdue']])}}`));
		expect(metricsOf('E-mails sent (per day)')).toEqual([[METRICS_NAMESPACE, EMAILS_SENT_METRIC, 'service', 'email', expect.objectContaining({ stat: 'Sum', period: 86_400 })]]);
	});
});
