/**
 * What the trigger's memory is keyed on: the parameters as written. A filter written as an
 * expression ("Last tested older than {{ $today.minus({days: 300}) }}") resolves to another
 * value each day; the memory must stay, or the devices entering that day are never emitted.
 * Polled through n8n-core against the sandbox over HTTP, trigger versions 1 and 2.
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { DEVICE } from '../../sandbox/properties';
import { filtersFromParameter } from '../../nodes/TestEquipmentCloud/shared/filters';
import { fingerprint } from '../../nodes/TestEquipmentCloud/trigger/state';
import { captureLogs, runPoll } from '../support/n8n';
import { credentials, DAY_MS, ids, overdueNow, setOverdue, useWorld } from '../support/trigger';

const world = useWorld();

const EXPRESSION = '={{ $today.minus({days: 300}).toFormat("yyyy-MM-dd") }}';

/** "Last tested older than today − 300 days", as each version's form writes it. */
const OLDER_THAN_300: Record<1 | 2, IDataObject> = {
	1: { filters: { date: [{ key: DEVICE.lastTested, conditions: { condition: [{ keyword: 'olderThan', value: EXPRESSION }] } }] } },
	2: { filters: { filter: [{ key: `${DEVICE.lastTested}|Date`, dateCondition: 'olderThan', dateValue: EXPRESSION }] } },
};

class Node {
	staticData: IDataObject = {};
	constructor(
		readonly version: 1 | 2,
		readonly parameters: IDataObject,
	) {}

	async tick() {
		const result = await runPoll({
			parameters: this.parameters,
			credentials: credentials(world.sandbox),
			staticData: this.staticData,
			typeVersion: this.version,
			workflowSettings: { timezone: 'UTC' },
		});
		if (result.error) throw new Error(`poll failed: ${result.error.message}`);
		this.staticData = result.staticData;
		return (result.items ?? []).map((i) => i.json);
	}
}

const notOverdue = () => [...world.sandbox.account.data.devices.keys()].filter((id) => !overdueNow(world.sandbox).has(id));

describe('the memory is keyed on the parameters as written', () => {
	for (const version of [1, 2] as const) {
		it(`v${version}: a filter written as an expression keeps the memory from day to day; each day's newly overdue device is emitted`, async () => {
			const node = new Node(version, { event: 'deviceOverdue', ...OLDER_THAN_300[version] });
			expect(await node.tick()).toEqual([]);
			for (let day = 1; day <= 2; day++) {
				world.advance(DAY_MS);
				const [id] = notOverdue();
				setOverdue(world.sandbox, id, true); // last tested 800 days ago: inside the filter
				expect(ids(await node.tick()), `day ${day}`).toEqual([id]);
			}
		});
	}

	it('a memory stored under the key of earlier versions (resolved filters) is still found, and kept under the new key', async () => {
		const filters = { number: [{ key: DEVICE.testInterval, join: 'AND', conditions: { condition: [{ keyword: 'greaterThan', value: 0 }] } }] };
		const node = new Node(1, { event: 'deviceOverdue', filters });
		await node.tick();
		const cursor = node.staticData.cursor as IDataObject;
		// As the released version stored it: keyed on the filters as sent.
		const legacyKey = fingerprint({ event: 'deviceOverdue', filters: filtersFromParameter(filters, 'overdueDevice'), onlyFailed: false });
		node.staticData = { cursor: { ...cursor, key: legacyKey } };
		const [id] = notOverdue();
		setOverdue(world.sandbox, id, true);
		expect(ids(await node.tick())).toEqual([id]);
		expect((node.staticData.cursor as IDataObject).key).toBe(cursor.key);
	});

	it('the log says when the memory starts over (settings changed), and not while it is kept', async () => {
		const node = new Node(2, { event: 'deviceOverdue', ...OLDER_THAN_300[2] });
		await node.tick();
		const kept = await captureLogs(async () => await node.tick());
		expect(kept.logs.filter((l) => /starts over/.test(l.message))).toEqual([]);
		const edited = new Node(2, { event: 'deviceOverdue', filters: { filter: [{ key: `${DEVICE.lastTested}|Date`, dateCondition: 'olderThan', dateValue: '2020-01-01' }] } });
		edited.staticData = node.staticData;
		const { logs } = await captureLogs(async () => await edited.tick());
		expect(logs).toContainEqual({ level: 'info', message: expect.stringMatching(/memory of "Test Equipment Cloud Trigger" starts over: the settings that decide what it watches changed/) });
	});
});
