import { EMAIL, hasAsciiLocalPart } from './routing';

/**
 * The one rule for a recipient's address on every face (the Lambdas' settings,
 * lambdas/email/recipients.ts, and the node's parameters, email/recipientsInput.ts): the address as
 * SES takes it, so the same recipient gets the same e-mail, `to` and dedupeKey from both.
 */

/**
 * A domain in Punycode, lower case (`Müller.example` → `xn--mller-kva.example`), by the WHATWG URL
 * host parser every runtime has; undefined when it is no domain name. The URL delimiters are refused
 * first: the parser would end the host at them (`lab/x.example` → `lab`), another address.
 */
export function asciiDomain(domain: string): string | undefined {
	if (/[/\\?#:%@]/.test(domain)) return undefined;
	try {
		return new URL(`http://${domain}`).hostname || undefined;
	} catch {
		return undefined;
	}
}

/**
 * An address (trimmed) as SES takes it: lower case, its domain in Punycode; or the problem with it,
 * to follow the name of the parameter or setting: not an address, a domain that is none, or a local
 * part beyond 7-bit ASCII (SMTPUTF8, which SES cannot send to).
 */
export function checkAddress(value: string): { address: string } | { problem: string } {
	const t = value.trim();
	if (!EMAIL.test(t)) return { problem: `"${value}" is not an e-mail address (expected e.g. lab-lead@example.com)` };
	const at = t.lastIndexOf('@');
	const domain = asciiDomain(t.slice(at + 1));
	if (domain === undefined) return { problem: `"${value}" has a domain that is not a valid (internationalized) domain name (expected e.g. lab-lead@example.com)` };
	if (!hasAsciiLocalPart(t)) return { problem: `"${value}" has a local part that is not 7-bit ASCII, which SES cannot send to (expected e.g. lab-lead@example.com; a domain with umlauts is fine)` };
	return { address: `${t.slice(0, at).toLowerCase()}@${domain}` };
}

/** A key of the routing rules' locales: an address as checkAddress writes it (one it refuses in lower case), a list's name trimmed. */
export function localeKey(key: string): string {
	const t = key.trim();
	if (!EMAIL.test(t)) return t;
	const checked = checkAddress(t);
	return 'address' in checked ? checked.address : t.toLowerCase();
}
