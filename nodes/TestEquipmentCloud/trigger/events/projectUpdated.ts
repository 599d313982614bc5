import type { IDataObject } from 'n8n-workflow';
import { firstRecord, recordId, refuseFilterOn, scan, type PollOutcome, type PollRun } from '../run';
import { STATE_VERSION, decodeIds, encodeIds, type ProjectsState } from '../state';

/** Event "projectUpdated": a project created or updated since the last poll. */

const UPDATED_TIME = 'updated_time';

export async function pollProjects(run: PollRun, previous: ProjectsState | undefined): Promise<PollOutcome> {
	const { settings } = run;
	refuseFilterOn(settings.filters, UPDATED_TIME, 'the trigger follows it to find updated projects');
	const mark = previous?.at ? Date.parse(previous.at) : undefined;
	const atMark = new Set(previous ? decodeIds(previous.ids) : []);
	const filters = [...settings.filters];
	if (previous?.at) filters.push({ key: UPDATED_TIME, conditions: [{ keyword: 'newerOrSame', value: previous.at.slice(0, 10) }] });

	let newest = mark;
	let newestText = previous?.at ?? null;
	let atNewest = new Set(atMark);
	const emitted: IDataObject[] = [];
	const inThisPoll = new Set<number>();
	// Read to the end every time (the projects updated since the watermark day, in id order,
	// which updates do not reorder): the watermark may only move after a complete read.
	await scan(run, 'project.list', { filters, ordering: { key: 'id', direction: 'asc' } }, false, (records) => {
		for (const record of records) {
			const id = recordId(record);
			const text = typeof record[UPDATED_TIME] === 'string' ? (record[UPDATED_TIME] as string) : '';
			const time = Date.parse(text);
			if (id === undefined || Number.isNaN(time) || inThisPoll.has(id)) continue;
			inThisPoll.add(id);
			const isNew = mark === undefined ? previous !== undefined : time > mark || (time === mark && !atMark.has(id));
			if (isNew) emitted.push(record);
			if (newest === undefined || time > newest) {
				newest = time;
				newestText = text;
				atNewest = new Set([id]);
			} else if (time === newest) {
				atNewest.add(id);
			}
		}
	});
	return {
		items: emitted,
		state: { v: STATE_VERSION, event: 'projectUpdated', key: run.key, at: newestText, ids: encodeIds(atNewest) },
	};
}

/** "Fetch Test Event": the project updated last. */
export async function projectsSample(run: PollRun): Promise<IDataObject | undefined> {
	return await firstRecord(run, 'project.list', { filters: run.settings.filters, ordering: { key: UPDATED_TIME, direction: 'desc' } }, () => true);
}
