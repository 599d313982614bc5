import { renderComplianceReport } from '../../email/complianceRender';
import { customerNoticesSchema } from '../../lambdas/email/noticeSettings';
import { renderNotice } from '../../email/noticesRender';
import type { OutgoingEmail } from '../../lambdas/email/ports';
import { renderDigest, renderFailedTest } from '../../email/render';
import type { Locale } from '../../email/texts';
import { previewReport } from './compliancePreview';
import { previewContent } from './emailPreview';

/**
 * Every kind of e-mail in one language, from the realistic previews (test/support/emailPreview.ts,
 * compliancePreview.ts), as the senders hand them to toMime: the digest, the immediate failed-test
 * e-mail, the compliance report with its CSVs and a customer's re-test notice with its CSV.
 */
export type EmailKind = 'digest' | 'failed test' | 'compliance report' | 're-test notice';
export const EMAIL_KINDS: readonly EmailKind[] = ['digest', 'failed test', 'compliance report', 're-test notice'];

/** A customer's notice for December 2026: two devices due, one already overdue (client/noticesRead.ts shapes). */
function previewNotice(locale: Locale): OutgoingEmail {
	const device = (id: number, designation: string, department: string, location: string | null, nextTestDate: string) => ({ id, customerId: 3, designation, idBarcode: `TEC-${String(id).padStart(6, '0')}`, department, location, nextTestDate });
	const settings = customerNoticesSchema().parse({ enabled: true, companyName: 'Lindner Testing', replyTo: 'termine@lab.example.com' });
	const r = renderNotice(
		{
			customerName: 'Kessler Services',
			month: '2026-12',
			due: [device(125, 'Angle grinder', 'Laboratory', 'Hall 2', '2026-12-04'), device(82, 'Lab power supply', 'Office', null, '2026-12-31')],
			overdue: [device(101, 'Floor heater', 'Office', 'Hall 1', '2026-10-14')],
			locale,
			replyTo: 'termine@lab.example.com',
			companyName: 'Lindner Testing',
			environment: 'production',
		},
		settings,
	);
	return {
		...envelope('facilities@kessler.example', locale, 're-test notice'),
		replyTo: 'termine@lab.example.com',
		subject: r.subject,
		text: r.text,
		html: r.html,
		attachments: [{ filename: r.csvFilename, contentType: 'text/csv', content: r.csv }],
	};
}

const envelope = (to: string, locale: Locale, kind: string) => ({
	from: 'Prüfstelle Süd <alerts@lab.example.com>',
	to,
	locale,
	messageId: `<${kind.replace(/ /g, '-')}-${locale}@lab.example.com>`,
	date: new Date('2026-11-20T06:00:00Z'),
});

export function previewOf(kind: EmailKind, locale: Locale): OutgoingEmail {
	if (kind === 're-test notice') return previewNotice(locale);
	if (kind === 'digest') return { ...envelope('custodian@acme.example', locale, kind), ...renderDigest(previewContent(), locale) };
	if (kind === 'failed test') return { ...envelope('custodian@acme.example', locale, kind), ...renderFailedTest(previewContent().failedTests[0], { environment: 'production', timeZone: 'Europe/Berlin', locale }) };
	const content = previewReport();
	const r = renderComplianceReport(content, locale);
	return {
		...envelope(content.recipient, locale, kind),
		subject: r.subject,
		text: r.text,
		html: r.html,
		attachments: [
			{ filename: `calibration-compliance-${content.month}.csv`, contentType: 'text/csv', content: r.csv },
			{ filename: `failure-rates-${content.month}.csv`, contentType: 'text/csv', content: r.failureRatesCsv },
		],
	};
}
