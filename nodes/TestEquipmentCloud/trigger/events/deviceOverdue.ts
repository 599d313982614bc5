import type { IDataObject } from 'n8n-workflow';
import { checkStillOverdue, laterDay, serviceTodayOf } from '../../../../client';
import { firstRecord, output, recordId, scan, type PollOutcome, type PollRun } from '../run';
import { STATE_VERSION, decodeIds, encodeIds, type OverdueState } from '../state';

/** Event "deviceOverdue": a device that enters the overdue list (again, after it left it). */

/** Targeted reads per poll to confirm that devices left the overdue list; the rest wait. */
export const MAX_CONFIRMATIONS = 100;

export async function pollOverdue(run: PollRun, previous: OverdueState | undefined): Promise<PollOutcome> {
	const before = previous ? new Set(decodeIds(previous.ids)) : undefined;
	const listed = new Set<number>();
	const entered: IDataObject[] = [];
	let serviceToday: string | undefined;
	// A first poll always reads the whole list: it is what later polls compare with.
	const { complete, pages } = await scan(run, 'overdueDevice.list', { filters: run.settings.filters }, previous !== undefined, (records) => {
		for (const record of records) {
			serviceToday = laterDay(serviceToday, serviceTodayOf(record));
			const id = recordId(record);
			if (id === undefined || listed.has(id)) continue;
			listed.add(id);
			if (before && !before.has(id)) entered.push(record);
		}
	});
	const ids = new Set(listed);
	if (before) {
		// A device missing from the scan is forgotten (so that its return is emitted) only when it
		// has really left: a scan of one page is a snapshot; in a longer one the list can shift
		// under the cursor, so each is confirmed with a targeted read (client/overdue.ts). One still
		// overdue is kept: with filters, a device that left only the filtered list stays remembered
		// while it is overdue. A scan that did not end normally forgets nothing.
		let reads = 0;
		for (const id of before) {
			if (listed.has(id)) continue;
			if (!complete) {
				ids.add(id);
				continue;
			}
			if (pages <= 1) continue;
			const deadlinePassed = run.deadline !== undefined && run.now() > run.deadline;
			if (reads >= MAX_CONFIRMATIONS || deadlinePassed || (await checkStillOverdue(run.client, id, serviceToday)) !== 'left') ids.add(id);
			reads++;
		}
	}
	return {
		items: output(entered, run.settings),
		state: { v: STATE_VERSION, event: 'deviceOverdue', key: run.key, ids: encodeIds(ids), gone: '' },
	};
}

/** "Fetch Test Event": the first device on the overdue list. */
export async function overdueSample(run: PollRun): Promise<IDataObject | undefined> {
	return await firstRecord(run, 'overdueDevice.list', { filters: run.settings.filters }, () => true);
}
