import { digestSaid, esc, renderDigest, type DigestContent, type RenderedEmail } from '../../email/render';
import { DEFAULT_LOCALE, fill, formatCount, formatDay, textsFor, type Locale } from '../../email/texts';
import { allRecipients, type EmailSettings, type Recipients } from './settings';

/**
 * The alert e-mails of a deployment that watches several accounts: each account routes with its
 * own recipients (or the deployment's), its facts and today's truth are kept apart, and a recipient
 * who follows several accounts gets one digest with a section per account.
 */
export interface AccountRouting {
	/** The account id, as events carry it in `detail.metadata.account`. */
	account: string;
	/** Its environment (where its pollers keep its state); unset = the deployment's. */
	environment?: 'sandbox' | 'production';
	/** Its own recipients; unset = the deployment's. */
	recipients?: Recipients;
}

/** The id whose e-mail state stays where a single-account deployment keeps it (lambdas/accounts.ts). */
const UNPARTITIONED = 'default';

/** Where the pollers keep an account's state: its keyScope (lambdas/pollers/context.ts), unpartitioned for a single account and for `default`. */
export function truthScope(environment: 'sandbox' | 'production', account: string | undefined): string {
	return account === undefined || account === UNPARTITIONED ? environment : `${environment}:${account}`;
}

/** The recipients an account's events go to. */
export function recipientsOf(settings: EmailSettings, accounts: AccountRouting[] | undefined, account: string | undefined): Recipients {
	return accounts?.find((a) => a.account === account)?.recipients ?? settings.recipients;
}

/** Everyone a digest goes to: the deployment's recipients and every account's. */
export function everyRecipient(settings: EmailSettings, accounts: AccountRouting[] | undefined): string[] {
	const out = new Set(allRecipients(settings.recipients));
	for (const a of accounts ?? []) for (const r of a.recipients ? allRecipients(a.recipients) : []) out.add(r);
	return [...out].sort();
}

/** One account's part of a recipient's digest. */
export interface AccountPart {
	account: string;
	content: DigestContent;
}

/**
 * A digest of several accounts: the single-account digest when only one account has something to
 * say (named in its subject), else one e-mail with a section per account, in the order of the list.
 */
export function renderAccountsDigest(parts: AccountPart[], locale: Locale = DEFAULT_LOCALE): RenderedEmail {
	const tx = textsFor(locale);
	const rendered = parts.map((p) => ({ ...p, email: renderDigest(p.content, locale) }));
	if (rendered.length === 1) {
		const [{ account, email }] = rendered;
		return { ...email, subject: fill(tx.digest.accountSubject, { subject: email.subject, account }), text: `${fill(tx.digest.accountLine, { account })}\n\n${email.text}` };
	}
	const c = parts[0].content;
	const date = formatDay(c.day, locale);
	const subject = `${fill(tx.digest.accountsSubject, { date, parts: parts.map((p) => `${p.account} (${summary(p.content, locale)})`).join('; ') })}${c.environment === 'sandbox' ? tx.common.sandboxSubject : ''}`;
	const text = [fill(tx.digest.accountsTitle, { count: formatCount(parts.length, locale), date }), '', ...rendered.flatMap(({ account, email }) => [fill(tx.digest.accountBanner, { account }), email.text])].join('\n');
	// Each account's card, as the single-account digest draws it, under one heading per account.
	const cards = rendered.map(({ account, email }) => `<h1 style="margin:24px auto 0 auto;max-width:640px;font-family:sans-serif;font-size:18px;line-height:24px;">${esc(fill(tx.digest.accountLine, { account }))}</h1>\n${bodyOf(email.html)}`);
	const first = rendered[0].email.html;
	const html = `${first.slice(0, first.indexOf('<body'))}${first.slice(first.indexOf('<body'), first.indexOf('>', first.indexOf('<body')) + 1)}\n${cards.join('\n')}\n</body>\n</html>\n`.replace(/<title>[^<]*<\/title>/, `<title>${esc(subject)}</title>`);
	return { subject, text, html };
}

function summary(c: DigestContent, locale: Locale): string {
	const counts = digestSaid(c, locale).join(', ');
	// An account with nothing but the day's re-test notices to say is summed up by them.
	return counts || (c.notices?.[0] ?? '');
}

function bodyOf(html: string): string {
	const start = html.indexOf('>', html.indexOf('<body')) + 1;
	return html.slice(start, html.lastIndexOf('</body>'));
}
