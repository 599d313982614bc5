import { createHash } from 'node:crypto';
import type { OutgoingEmail } from './ports';
import { DEFAULT_LOCALE } from '../../email/texts';

/**
 * The e-mail as one MIME message (RFC 5322 + 2045-2047): multipart/alternative with the plain
 * text first and the HTML second (mail apps show the last part they can render). SES sends these
 * bytes as they are, and `npm start` writes the same bytes to its outbox.
 */
export function toMime(email: OutgoingEmail): string {
	const boundary = `=_tec_${createHash('sha256').update(email.messageId).digest('hex').slice(0, 24)}`;
	const headers = [
		`From: ${address(email.from)}`,
		`To: ${address(email.to)}`,
		...(email.replyTo ? [`Reply-To: ${address(email.replyTo)}`] : []),
		`Subject: ${encodeWord(email.subject)}`,
		`Date: ${email.date.toUTCString().replace('GMT', '+0000')}`,
		`Message-ID: ${email.messageId}`,
		'MIME-Version: 1.0',
		'Auto-Submitted: auto-generated',
		// RFC 3282: the language of the text; mail apps offer to translate by it.
		`Content-Language: ${email.locale ?? DEFAULT_LOCALE}`,
	];
	const part = (type: string, body: string) => [`--${boundary}`, `Content-Type: ${type}; charset=UTF-8`, 'Content-Transfer-Encoding: base64', '', base64Lines(body)].join('\r\n');
	const alternative = [part('text/plain', email.text), part('text/html', email.html), `--${boundary}--`];
	if (!email.attachments?.length) {
		return `${[...headers, `Content-Type: multipart/alternative; boundary="${boundary}"`, '', 'This is a multipart message in MIME format.', '', ...alternative, ''].join('\r\n')}`;
	}
	// With files: multipart/mixed around the two alternatives, then each file.
	const mixed = boundary.replace('=_tec_', '=_tec_mixed_');
	const files = email.attachments.map((a) => {
		return [`--${mixed}`, `Content-Type: ${a.contentType}; charset=UTF-8; ${parameter('name', a.filename)}`, `Content-Disposition: attachment; ${parameter('filename', a.filename)}`, 'Content-Transfer-Encoding: base64', '', base64Lines(a.content)].join('\r\n');
	});
	return `${[...headers, `Content-Type: multipart/mixed; boundary="${mixed}"`, '', 'This is a multipart message in MIME format.', '', `--${mixed}`, `Content-Type: multipart/alternative; boundary="${boundary}"`, '', ...alternative, ...files, `--${mixed}--`, ''].join('\r\n')}`;
}

/**
 * A file name parameter: quoted when printable ASCII, else RFC 2231 (`filename*=UTF-8''Pr%C3%BCf.csv`)
 * so that umlauts arrive as they were; quotes, backslashes and line breaks become `_` either way.
 */
export function parameter(key: string, value: string): string {
	const clean = value.replace(/["\\\r\n]/g, '_');
	if (/^[\x20-\x7e]*$/.test(clean)) return `${key}="${clean}"`;
	const encoded = [...Buffer.from(clean, 'utf8')].map((b) => (/[A-Za-z0-9!#$&+.^_`|~-]/.test(String.fromCharCode(b)) && b < 0x80 ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
	return `${key}*=UTF-8''${encoded}`;
}

function base64Lines(text: string): string {
	return (Buffer.from(text, 'utf8').toString('base64').match(/.{1,76}/g) ?? []).join('\r\n');
}

/** A header value: as it is when printable ASCII, else RFC 2047 encoded words (whole characters each). */
export function encodeWord(text: string): string {
	const clean = text.replace(/[\r\n]+/g, ' ');
	if (/^[\x20-\x7e]*$/.test(clean)) return clean;
	const words: string[] = [];
	let chunk = '';
	for (const ch of clean) {
		if (Buffer.byteLength(chunk + ch) > 45) {
			words.push(chunk);
			chunk = '';
		}
		chunk += ch;
	}
	if (chunk) words.push(chunk);
	return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`).join('\r\n ');
}

/** `Name <addr>` with the name encoded when needed, or the bare address. */
function address(value: string): string {
	const m = /^\s*(?:([^<>]*\S)\s*)?<([^<>]+)>\s*$/.exec(value);
	if (!m) return value.trim();
	if (!m[1]) return `<${m[2]}>`;
	const name = m[1].replace(/^"|"$/g, '');
	return /^[\x20-\x7e]*$/.test(name) ? `"${name.replace(/["\\]/g, '\\$&')}" <${m[2]}>` : `${encodeWord(name)} <${m[2]}>`;
}
