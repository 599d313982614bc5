import { monthBefore, readScrappedDevices } from '../../client';
import { keyScope, type PollerContext } from './context';
import { NS, type ScrappedBin } from './state';

/**
 * The scrapped devices the monthly report's failure rates count (email/compliance.ts), as n8n's Get
 * Failure Rates counts them: the recycle bin's device entries (client/failureRatesRead.ts,
 * readScrappedDevices), read by the due-date poller, which holds the token, and kept whole under
 * one key (the e-mail functions hold none). Read on the first run of a day, and again on a run whose
 * complete scan found a device gone: one walk of the bin's device entries of the last 24 months
 * (one request per page at the largest page size, plus the overlap), not one per run. A bin the token may not read
 * is kept as such (null): the report then says that it could not count them.
 */

export const SCRAPPED_KEY = 'bin';

/** From the first of the month 24 months before today's: every report of a month that has ended reaches back no further. */
export const scrappedFrom = (today: string): string => `${monthBefore(today.slice(0, 7), 24)}-01`;

export async function recordScrapped(ctx: PollerContext, today: string, deviceLeft: boolean): Promise<void> {
	const ns = NS.scrapped(keyScope(ctx));
	const had = await ctx.store.get<ScrappedBin>(ns, SCRAPPED_KEY);
	if (had && had.readOn === today && !deviceLeft) return;
	const from = scrappedFrom(today);
	const devices = await readScrappedDevices(ctx.client, from);
	await ctx.store.putMany<ScrappedBin>(ns, [{ key: SCRAPPED_KEY, value: { readOn: today, from, devices } }]);
}
