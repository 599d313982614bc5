/** CSV cells for the report's attachments (the due dates, the failure rates). */

/** RFC 4180, with cells that a spreadsheet would run as a formula (= + - @) quoted as text. */
export function csvCell(value: string | number | boolean | null): string {
	if (value === null) return '';
	let text = String(value);
	// A leading apostrophe is a spreadsheet's text marker: one before a formula character makes the
	// cell text, and one before a literal apostrophe keeps it (so every cell reads back as it was).
	if (typeof value === 'string' && /^[=+\-@\t\r']/.test(text)) text = `'${text}`;
	return /[",\r\n']/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
