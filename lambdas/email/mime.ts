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

/**
 * A header value within RFC 5322 and 2047: as it is when printable ASCII and short; printable
 * ASCII folded at its spaces (CRLF before a space, so unfolding gives it back) when every line
 * then fits in 78 characters; otherwise RFC 2047 encoded words of whole characters, at most 68
 * characters each, one per line. Text that could be read as an encoded word (`=?`), or with
 * spaces at its ends, is encoded too, so it arrives as written. `used` is what the line holds before the value (`Subject: `).
 */
export function encodeWord(text: string, used = 9): string {
	const clean = text.replace(/[\r\n]+/g, ' ');
	// Spaces at either end are kept only inside encoded words (readers trim a header's value).
	if (/^([\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?)?$/.test(clean) && !clean.includes('=?')) {
		if (used + clean.length <= MAX_LINE) return clean;
		const folded = foldAtSpaces(clean, used);
		if (folded !== undefined) return folded;
	}
	const words: string[] = [];
	let chunk = '';
	for (const ch of clean) {
		if (Buffer.byteLength(chunk + ch) > WORD_BYTES) {
			words.push(chunk);
			chunk = '';
		}
		chunk += ch;
	}
	if (chunk) words.push(chunk);
	return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`).join('\r\n ');
}

/** Lines of a folded header: 78 characters (RFC 5322's SHOULD; its MUST is 998). */
const MAX_LINE = 78;
/** Bytes per encoded word: 42 bytes are 56 base64 characters, 68 with `=?UTF-8?B?` and `?=` (RFC 2047: at most 75). */
const WORD_BYTES = 42;

/** Printable ASCII folded before spaces so that no line passes 78 characters; undefined when a word is too long for that. */
function foldAtSpaces(text: string, used: number): string | undefined {
	const lines: string[] = [];
	let line = '';
	let room = MAX_LINE - used;
	// Each piece starts with the space it follows (the first piece may not): a fold goes before that space.
	for (const piece of text.match(/ ?[^ ]*/g)!.filter((p) => p !== '')) {
		if (line.length + piece.length <= room || line === '' || line.trim() === '') {
			line += piece;
			continue;
		}
		lines.push(line);
		line = piece;
		room = MAX_LINE;
	}
	lines.push(line);
	// A line of nothing but white space would be read as the header's end; a line over the limit is not folded.
	if (lines.some((l, i) => l.length > (i === 0 ? MAX_LINE - used : MAX_LINE) || (i > 0 && l.trim() === ''))) return undefined;
	return lines.join('\r\n');
}

/** `Name <addr>` with the name encoded when needed, or the bare address. */
function address(value: string): string {
	const m = /^\s*(?:([^<>]*\S)\s*)?<([^<>]+)>\s*$/.exec(value);
	if (!m) return value.trim();
	if (!m[1]) return `<${m[2]}>`;
	const name = m[1].replace(/^"|"$/g, '');
	return /^[\x20-\x7e]*$/.test(name) ? `"${name.replace(/["\\]/g, '\\$&')}" <${m[2]}>` : `${encodeWord(name)} <${m[2]}>`;
}
