import { monthBefore } from '../../client/compliance';
import type { RateScrappedDevice } from '../../client/failureRates';
import type { StateStore } from '../ports';
import { NS, type ScrappedBin, type ScrappedBinPart } from './state';

/**
 * The scrapped devices the monthly report's failure rates count (email/compliance.ts), as n8n's Get
 * Failure Rates counts them: the recycle bin's device entries (client/failureRatesRead.ts,
 * readScrappedDevices), read by the due-date poller, which holds the token, and kept for the e-mail
 * functions (they hold none). Read on the first run of a day, and again on a run whose
 * complete scan found a device gone: one walk of the bin's device entries of the last 24 months
 * (one request per page at the largest page size, plus the overlap), not one per run. A bin the token may not read
 * is kept as such (null): the report then says that it could not count them.
 *
 * Kept in parts (namespace `scrappedBin:`, keys 1…n), each at most SCRAPPED_PART_BYTES of JSON, and
 * a record of them (`scrapped:` › `bin`: the day read, the parts and the stamp they carry), written
 * last: a DynamoDB item holds at most 400 KB, about 4,800 entries, and 100,000 devices scrapping
 * 3 % a year leave 6,000 in 24 months. The reader takes the parts the record names with its stamp;
 * a write that stopped midway reads as not read, never as a mix of two bins. Why a bin is not read is
 * kept too: a 413 (the token may not read it) apart from a read that failed or was never made.
 */

export const SCRAPPED_KEY = 'bin';
/**
 * A part's entries as JSON, at most (one entry larger than this is a part of its own). DynamoDB
 * counts an entry's names and values much as JSON writes them (UTF-8, numbers shorter), so a part
 * stays near a quarter of the 400 KB item limit.
 */
export const SCRAPPED_PART_BYTES = 100_000;

/** From the first of the month 24 months before today's: every report of a month that has ended reaches back no further. */
export const scrappedFrom = (today: string): string => `${monthBefore(today.slice(0, 7), 24)}-01`;

export interface ReadBin {
	readOn: string;
	from: string;
	devices: RateScrappedDevice[] | null;
}

function partsOf(devices: readonly RateScrappedDevice[]): RateScrappedDevice[][] {
	const parts: RateScrappedDevice[][] = [];
	let part: RateScrappedDevice[] = [];
	let bytes = 2;
	for (const d of devices) {
		const size = Buffer.byteLength(JSON.stringify(d)) + 1;
		if (part.length > 0 && bytes + size > SCRAPPED_PART_BYTES) {
			parts.push(part);
			part = [];
			bytes = 2;
		}
		part.push(d);
		bytes += size;
	}
	if (part.length > 0) parts.push(part);
	return parts;
}

/** Keeps a bin read at `readAt` (ms, the parts' stamp): its parts, then the record naming them; the earlier bin's other parts expire. */
export async function writeScrappedBin(store: Pick<StateStore, 'get' | 'putMany'>, scope: string, bin: ReadBin, readAt: number): Promise<void> {
	const ns = NS.scrapped(scope);
	const partsNs = NS.scrappedBin(scope);
	const had = await store.get<ScrappedBin>(ns, SCRAPPED_KEY);
	const parts = bin.devices === null ? [] : partsOf(bin.devices);
	if (parts.length > 0) await store.putMany<ScrappedBinPart>(partsNs, parts.map((devices, i) => ({ key: String(i + 1), value: { readAt, devices } })));
	await store.putMany<ScrappedBin>(ns, [{ key: SCRAPPED_KEY, value: { readOn: bin.readOn, from: bin.from, ...(bin.devices === null ? { devices: null } : { parts: parts.length, readAt }) } }]);
	const stale = Array.from({ length: Math.max(0, (had?.parts ?? 0) - parts.length) }, (_, i) => parts.length + i + 1);
	if (stale.length > 0) await store.putMany<ScrappedBinPart>(partsNs, stale.map((k) => ({ key: String(k), value: { readAt, devices: [] }, expiresAt: readAt })));
}

/** Why no bin is counted: the token may not read it (413), or its last read failed or none was made (the parts of a stopped write too). */
export type BinNotRead = 'forbidden' | 'failed';

/** The scrapped devices kept (an earlier version's whole bin too), or why there are none. */
export async function readKeptBin(view: Pick<StateStore, 'list'>, scope: string): Promise<{ devices: RateScrappedDevice[] } | { devices: null; notRead: BinNotRead }> {
	const failed = { devices: null, notRead: 'failed' } as const;
	let bin: ScrappedBin | undefined;
	for await (const item of view.list<ScrappedBin>(NS.scrapped(scope))) if (item.key === SCRAPPED_KEY) bin = item.value;
	if (!bin || bin.failed === true) return failed;
	if (bin.parts === undefined) return bin.devices ? { devices: bin.devices } : bin.devices === null ? { devices: null, notRead: 'forbidden' } : failed;
	const parts = new Map<number, RateScrappedDevice[]>();
	for await (const { key, value } of view.list<ScrappedBinPart>(NS.scrappedBin(scope))) {
		const k = Number(key);
		if (k <= bin.parts && value.readAt === bin.readAt) parts.set(k, value.devices);
	}
	if (parts.size !== bin.parts) return failed;
	return { devices: [...parts.entries()].sort(([a], [b]) => a - b).flatMap(([, devices]) => devices) };
}

/** The scrapped devices kept; null when none were read, the token may not read them, or the parts do not make one bin. */
export async function readScrappedBin(view: Pick<StateStore, 'list'>, scope: string): Promise<RateScrappedDevice[] | null> {
	return (await readKeptBin(view, scope)).devices;
}
