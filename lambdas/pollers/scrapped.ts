import { readScrappedDevices, type RateScrappedDevice } from '../../client';
import { keyScope, type PollerContext } from './context';
import { SCRAPPED_KEY, scrappedFrom, writeScrappedBin } from './scrappedBin';
import { NS, type ScrappedBin } from './state';

/**
 * The due-date poller's read of the recycle bin's device entries for the monthly report's failure
 * rates (how they are kept and read back: scrappedBin.ts, which the e-mail functions import without
 * the service client).
 */

export async function recordScrapped(ctx: PollerContext, today: string, deviceLeft: boolean): Promise<void> {
	const ns = NS.scrapped(keyScope(ctx));
	const had = await ctx.store.get<ScrappedBin>(ns, SCRAPPED_KEY);
	if (had && had.readOn === today && had.failed !== true && !deviceLeft) return;
	const from = scrappedFrom(today);
	let devices: RateScrappedDevice[] | null;
	try {
		devices = await readScrappedDevices(ctx.client, from);
	} catch (error) {
		// Kept as failed (not the token's doing) unless a whole bin was kept: that one stays what the report counts.
		if (!had || had.failed === true || (had.parts === undefined && !had.devices)) await ctx.store.putMany<ScrappedBin>(ns, [{ key: SCRAPPED_KEY, value: { readOn: today, from, failed: true } }]);
		throw error;
	}
	await writeScrappedBin(ctx.store, keyScope(ctx), { readOn: today, from, devices }, ctx.now());
}
