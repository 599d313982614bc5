import { renderComplianceReport } from '../../lambdas/email/complianceRender';
import type { OutgoingEmail } from '../../lambdas/email/ports';
import { renderDigest, renderFailedTest } from '../../lambdas/email/render';
import type { Locale } from '../../lambdas/email/texts';
import { previewReport } from './compliancePreview';
import { previewContent } from './emailPreview';

/**
 * Every kind of e-mail in one language, from the realistic previews (test/support/emailPreview.ts,
 * compliancePreview.ts), as the senders hand them to toMime: the digest, the immediate failed-test
 * e-mail and the compliance report with its two CSVs.
 */
export type EmailKind = 'digest' | 'failed test' | 'compliance report';
export const EMAIL_KINDS: readonly EmailKind[] = ['digest', 'failed test', 'compliance report'];

const envelope = (to: string, locale: Locale, kind: string) => ({
	from: 'Prüfstelle Süd <alerts@lab.example.com>',
	to,
	locale,
	messageId: `<${kind.replace(/ /g, '-')}-${locale}@lab.example.com>`,
	date: new Date('2026-11-20T06:00:00Z'),
});

export function previewOf(kind: EmailKind, locale: Locale): OutgoingEmail {
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
