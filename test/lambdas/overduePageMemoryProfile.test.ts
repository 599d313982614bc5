import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../client';
import { DynamoStateStore } from '../../lambdas/adapters/dynamoStateStore';
import { pollOverdueDevices } from '../../lambdas/pollers/overdueDevices';
import { DEVICE } from '../../sandbox/properties';
import { pollerContext, useFreshScenarios, usePollerWorld } from '../support/pollers';

// A service with page numbers and renamed keys: a page-number window starts before the items
// asked for (the overlap), and is remembered by where it starts.
const world = usePollerWorld(
	{ devices: 160, customers: 6, testResults: 0 },
	{ profile: resolveProfile({ paging: { style: 'pageNumber', pageParam: 'page', pageSizeParam: 'page_size' }, overdue: { daysOverdue: 'overdue_days' } }) },
);
const scenario = useFreshScenarios(world);
const run = () => pollOverdueDevices(pollerContext(world, scenario.table(), { settings: { pageSize: 10 } }));

describe('remembered pages with page numbers and renamed keys', () => {
	it('a steady run recalls its windows; a changed record is read from its own', async () => {
		const first = await run();
		world.aws.accepted.length = 0;
		const steady = await run();
		expect(steady).toMatchObject({ complete: true, itemsSeen: first.itemsSeen, pages: first.pages });
		expect(steady.pagesRecalled).toBeGreaterThanOrEqual(steady.pages - 1);
		expect(world.aws.accepted).toEqual([]);

		const account = world.sandbox.account;
		const id = [...account.data.devices.values()].filter((d) => account.isOverdue(d)).map((d) => d.id).sort((a, b) => a - b)[3];
		account.edit('device', { id, properties: { [DEVICE.department]: 'Laboratory' } }, 'test');
		const changed = await run();
		expect(changed.pagesRecalled).toBeLessThan(steady.pagesRecalled!);
		const stored = await new DynamoStateStore(scenario.table(), world.dynamo, async () => undefined).get<{ device: { department: string } }>('overdue:sandbox', String(id));
		expect(stored?.device.department).toBe('Laboratory');
	});
});
