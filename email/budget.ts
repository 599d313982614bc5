/**
 * E-mails that arrive whole: Gmail clips an HTML body over about 102 KB and hides the rest, so
 * every e-mail's HTML keeps within a byte budget, at any account size. The renderers list rows
 * up to a number they are given; `withinBudget` gives them the most rows per list that keep the
 * HTML within the budget (the lists then end with "…and N more"; the CSVs hold every row).
 * Counting bytes rather than capping rows holds whatever a row costs (long names, many
 * measurements, German words).
 */

/** The HTML's budget in bytes (UTF-8): under Gmail's clipping, with room for the MIME around it. */
export const HTML_BUDGET_BYTES = 96_000;

/** The UTF-8 length of a text, without encoding it. */
export function utf8Bytes(text: string): number {
	// ASCII only (an English e-mail, mostly): a byte per character.
	if (!/[\u0080-\uffff]/.test(text)) return text.length;
	let n = 0;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (c < 0x80) n += 1;
		else if (c < 0x800) n += 2;
		else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
			n += 4;
			i++;
		} else n += 3;
	}
	return n;
}

/**
 * The e-mail rendered with the most rows per list (at most `most`) whose HTML fits the budget;
 * with none when even that does not fit (the counts and "…and N more" still say everything).
 * A bisection over the row count: a handful of renderings for the largest lists.
 */
export function withinBudget<T extends { html: string }>(render: (rows: number) => T, most: number, budget = HTML_BUDGET_BYTES): T {
	const first = render(most);
	if (utf8Bytes(first.html) <= budget) return first;
	let best: T | undefined;
	let low = 0;
	let high = most - 1;
	while (low <= high) {
		const mid = Math.floor((low + high) / 2);
		const r = render(mid);
		if (utf8Bytes(r.html) <= budget) {
			best = r;
			low = mid + 1;
		} else high = mid - 1;
	}
	return best ?? render(0);
}

/**
 * The most characters a text from the service (a name, a barcode, a step, a unit) shows in an
 * e-mail's subject and body. The row budget above cannot shorten one field that stands in the
 * subject, the title and the body (a name of 45 KB broke it): a longer text shows its first
 * FIELD_MAX_CHARS − 1 characters and "…". Even then, each of the ten or so places a failed test's
 * fields stand costs at most 6 bytes per character (a quote, escaped): 500 keeps it within the
 * budget. The CSV attachments hold every field whole.
 */
export const FIELD_MAX_CHARS = 500;

/** `text` as an e-mail shows it: at most FIELD_MAX_CHARS characters (code points, never half an emoji). */
export function clipField(text: string): string {
	if (text.length <= FIELD_MAX_CHARS) return text;
	const chars = [...text];
	return chars.length <= FIELD_MAX_CHARS ? text : `${chars.slice(0, FIELD_MAX_CHARS - 1).join('')}…`;
}

/** The same for a value that may be missing. */
export const clipOptional = (text: string | null): string | null => (text === null ? null : clipField(text));
