import type { OverdueDevice } from '../events/schemas';

/** The detail of an `Overdue Devices Digest` event (see lambdas/events/schemas.ts). */
export interface DigestDetail {
	metadata: { dedupeKey: string; occurredAt: string; environment: 'sandbox' | 'production' };
	data: {
		count: number;
		listed: number;
		truncated: number;
		groups: Array<{ customerName: string | null; department: string | null; count: number; devices: OverdueDevice[] }>;
	};
}

export interface DigestEmail {
	/** Plain ASCII, at most 100 characters (the limits of an SNS subject). */
	subject: string;
	/** Plain text. */
	body: string;
}

export interface FormatOptions {
	/** IANA time zone the run time is shown in (the schedule's). */
	timeZone?: string;
	/** Where the mail comes from, named in the footer. */
	sender?: string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * One readable e-mail per digest: the count in the subject, the devices listed by customer and
 * department, and how many were left out when the digest was capped. Pure: no clock, no I/O.
 */
export function formatDigestEmail(detail: DigestDetail, options: FormatOptions = {}): DigestEmail {
	const { data, metadata } = detail;
	const timeZone = options.timeZone ?? 'UTC';
	const subject = asciiSubject(`${plural(data.count, 'device', 'devices')} became overdue (${metadata.environment})`);

	const lines: string[] = [
		`${plural(data.count, 'device', 'devices')} became overdue for the next test (${metadata.environment}).`,
		`Found by the poll run of ${localTime(metadata.occurredAt, timeZone)} (${timeZone}).`,
	];
	const label = (g: DigestDetail['data']['groups'][number]) => `${g.customerName ?? '(no customer)'} / ${g.department ?? '(no department)'}`;
	for (const group of data.groups.filter((g) => g.devices.length > 0)) {
		lines.push('', `${label(group)}: ${plural(group.count, 'device', 'devices')}`);
		for (const device of group.devices) lines.push(`  - ${deviceLine(device)}`);
		const notListed = group.count - group.devices.length;
		if (notListed > 0) lines.push(`  …and ${notListed} more`);
	}
	if (data.truncated > 0) {
		lines.push('', `…and ${data.truncated} more not listed in this e-mail (${data.listed} of ${data.count} shown).`);
		const unlisted = data.groups.filter((g) => g.devices.length === 0);
		if (unlisted.length > 0) {
			lines.push('Also newly overdue:');
			for (const g of unlisted) lines.push(`  ${label(g)}: ${plural(g.count, 'device', 'devices')}`);
		}
		lines.push('The overdue list in Test Equipment Cloud has them all.');
	}
	lines.push(
		'',
		'--',
		`${options.sender ?? 'Test Equipment Cloud alerts'}: one e-mail per poll run that finds newly overdue devices.`,
		`Reference: ${metadata.dedupeKey}`,
	);
	return { subject, body: `${lines.join('\n')}\n` };
}

function deviceLine(d: OverdueDevice): string {
	const name = d.designation?.trim() || '(no designation)';
	const barcode = d.idBarcode?.trim() ? `ID Barcode ${d.idBarcode.trim()}` : 'no ID Barcode';
	const tested = d.lastTestedDate ? `last tested ${d.lastTestedDate}` : 'never tested';
	return `${name} (${barcode}): ${tested}, ${overdue(d)}`;
}

function overdue(d: OverdueDevice): string {
	if (d.daysOverdue === null) return d.nextTestDate ? `due ${d.nextTestDate}` : 'overdue';
	if (d.daysOverdue <= 0) return d.nextTestDate ? `due today (${d.nextTestDate})` : 'due today';
	return `${plural(d.daysOverdue, 'day', 'days')} overdue${d.nextTestDate ? ` (due ${d.nextTestDate})` : ''}`;
}

/** `YYYY-MM-DD HH:mm` in the time zone. */
function localTime(iso: string, timeZone: string): string {
	const date = new Date(iso);
	if (Number.isNaN(date.getTime())) return iso;
	const parts = Object.fromEntries(
		new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
			.formatToParts(date)
			.map((p) => [p.type, p.value]),
	);
	return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

/** SNS subjects: ASCII, no line breaks, at most 100 characters. */
function asciiSubject(text: string): string {
	const ascii = text.replace(/[^\x20-\x7e]/g, '?');
	return ascii.length <= 100 ? ascii : `${ascii.slice(0, 97)}...`;
}
