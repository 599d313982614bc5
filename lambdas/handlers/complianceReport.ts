import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { reportMonthOn } from '../../email/compliance';
import { runComplianceReport, UNMATCHED_DEPARTMENTS, type ComplianceRunReport } from '../email/complianceRun';
import { digestDay } from '../email/digest';
import { readDigestInvocation } from '../email/events';
import { EMAILS_SENT_METRIC } from './metricNames';
import { wireEmail, type EmailWiring } from './emailWiring';
import { logger, metrics, powertoolsHandler } from './powertools';
import { readEvent } from './readEvent';

/**
 * EventBridge Scheduler target on the first and second of each month at the digest hour: the compliance
 * report of the month before (lambdas/email/complianceRun.ts), each recipient's once however often
 * this runs (Powertools Idempotency in the SES mailer); each account's to its own recipients.
 * Input: `{"scheduledTime": "…"}`, read as the digest reads it (a retry still means that day).
 * A function of its own: the report beside the digest took the digest's bundle past its budget.
 */
/**
 * How long a report's send is remembered: the month (a digest day's three days would let a redrive
 * of the 2nd's run on the 4th or later send what the 1st sent).
 */
const REPORT_RECORD_SECONDS = 35 * 86_400;

let wired: EmailWiring | undefined;

export const handler = powertoolsHandler(async (invocation: unknown, context: Context): Promise<ComplianceRunReport | undefined> => {
	const input = readEvent(() => readDigestInvocation(invocation));
	wired ??= await wireEmail({ sentRecordSeconds: REPORT_RECORD_SECONDS });
	const { env, deps } = wired;
	deps.mailer.registerLambdaContext(context);
	const day = digestDay(input, Date.now(), env.timeZone);
	// The 2nd too: a daylight-saving gap can leave the 1st's hour out (the schedule then skips it);
	// the 1st's sends are kept per recipient for the month, so the 2nd sends only what it did not.
	const month = reportMonthOn(day) ?? (day.endsWith('-02') ? reportMonthOn(`${day.slice(0, 8)}01`) : undefined);
	if (month === undefined) {
		logger.info('No compliance report on this day: it goes out on the first of a month (the second sends what the first did not)', { day });
		return undefined;
	}
	const report = await runComplianceReport(deps, month);
	if (report.unmatchedDepartments.length > 0) logger.warn(UNMATCHED_DEPARTMENTS, { departments: report.unmatchedDepartments });
	// Only this run's sends count: what the 1st (or an earlier try) sent is already sent.
	logger.info('Compliance report sent', { month, sent: report.sent.length, alreadySent: report.alreadySent.length, nothingToSay: report.nothingToSay.length });
	metrics.addMetric(EMAILS_SENT_METRIC, MetricUnit.Count, report.sent.length);
	return report;
});
