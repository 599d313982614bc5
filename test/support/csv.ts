/** Reading the e-mails' CSV attachments back (RFC 4180: quoted cells, doubled quotes, CRLF), with either delimiter. */
export function readCsv(text: string, delimiter: ',' | ';' = ','): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let cell = '';
	let quoted = false;
	const endCell = () => {
		row.push(cell);
		cell = '';
	};
	for (let i = 0; i < text.length; i++) {
		const ch = text[i];
		if (quoted) {
			if (ch === '"' && text[i + 1] === '"') {
				cell += '"';
				i++;
			} else if (ch === '"') quoted = false;
			else cell += ch;
		} else if (ch === '"') quoted = true;
		else if (ch === delimiter) endCell();
		else if (ch === '\r' && text[i + 1] === '\n') {
			endCell();
			rows.push(row);
			row = [];
			i++;
		} else cell += ch;
	}
	return rows;
}
