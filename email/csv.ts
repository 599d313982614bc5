import type { Locale } from './texts';

/** CSV cells and files for the e-mails' attachments (the report's due dates, failure rates and forecast; the notices' devices). */

type Cell = string | number | boolean | null;

/**
 * RFC 4180, with cells that a spreadsheet would run as a formula (= + - @) quoted as text; a cell
 * holding the delimiter (`,` or `;`) is quoted too. With `;` (German Excel) a number's decimal mark
 * is the comma: German Excel reads 0.014 as text and 1.4 as a date (1 April).
 */
export function csvCell(value: Cell, delimiter: ',' | ';' = ','): string {
	if (value === null) return '';
	if (typeof value === 'number' && delimiter === ';') return String(value).replace('.', ',');
	let text = String(value);
	// A leading apostrophe is a spreadsheet's text marker: one before a formula character makes the
	// cell text, and one before a literal apostrophe keeps it (so every cell reads back as it was).
	if (typeof value === 'string' && /^[=+\-@\t\r']/.test(text)) text = `'${text}`;
	return /[",\r\n']/.test(text) || text.includes(delimiter) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The delimiter a language's spreadsheets expect: German Excel splits at `;` (its decimal mark is the comma, csvCell writes it). */
export const csvDelimiter = (locale: Locale): ',' | ';' => (locale === 'de' ? ';' : ',');

/** The byte-order mark that makes Excel read the file as UTF-8 (umlauts intact). */
export const CSV_BOM = '\uFEFF';

/** A whole CSV file: the byte-order mark, one line per row (CRLF), cells split by the language's delimiter. */
export function csvFile(rows: ReadonlyArray<readonly Cell[]>, locale: Locale): string {
	const d = csvDelimiter(locale);
	return `${CSV_BOM}${rows.map((r) => r.map((v) => csvCell(v, d)).join(d)).join('\r\n')}\r\n`;
}
