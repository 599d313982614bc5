/**
 * Errors while polling (n8n errors with the service's description; a failed poll leaves the
 * static data as it was) and manual mode ("Fetch Test Event" through WorkflowExecute).
 */
import { describe, expect, it } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { DEFAULT_RETRY } from '../../client';
import { DEVICE } from '../../sandbox/properties';
import { withInstantWaits } from '../support/instantWaits';
import { credentials, ids, overdueNow, Poller, setOverdue, useWorld } from '../support/trigger';
import { captureLogs, runPoll } from '../support/n8n';

const world = useWorld();

const notOverdue = () => [...world.sandbox.account.data.devices.keys()].filter((id) => !overdueNow(world.sandbox).has(id));

describe('errors while polling', () => {
	it('401 (bad token): a NodeApiError with the service’s description, never the token; static data untouched', async () => {
		const token = 'f'.repeat(40);
		const poller = new Poller(world, { event: 'deviceOverdue' });
		const result = await poller.tick(token);
		expect(result.error).toMatchObject({ name: 'NodeApiError', httpCode: '401' });
		expect(result.error?.message).toContain('access token is invalid');
		expect(result.error?.description).toContain('Invalid token');
		expect(JSON.stringify(result.error)).not.toContain(token);
		expect(result.staticData).toEqual({});
		expect(result.items).toBeNull();
	});

	it('413 (token without the scope) and 426 (licence expired) surface as clear node errors', async () => {
		const { token } = world.sandbox.account.createToken({ scopes: ['customers:read'] });
		const poller = new Poller(world, { event: 'deviceOverdue' });
		const denied = await poller.tick(token);
		expect(denied.error).toMatchObject({ name: 'NodeApiError', httpCode: '413' });
		expect(denied.error?.description).toContain('devices:read');
		expect(denied.error?.message).toContain('permission scope');

		world.sandbox.account.license = 'expired';
		const expired = await poller.tick();
		expect(expired.error).toMatchObject({ name: 'NodeApiError', httpCode: '426' });
		expect(expired.error?.description).toContain('licence of this account has expired');
	});

	it('429 from other traffic is waited out: the poll succeeds and emits', async () => {
		const poller = new Poller(world, { event: 'deviceOverdue' });
		await poller.poll();
		const [id] = notOverdue();
		setOverdue(world.sandbox, id, true);
		const fault = world.sandbox.faults.add({ kind: 'status', status: 429, count: 2 });
		expect(ids(await poller.poll())).toEqual([id]);
		expect(fault.hits).toBe(2);
	});

	it('Max Retry Wait is the bound, not a count of attempts: a 150 s maintenance with Max Retry Wait 300 is waited out and the poll emits', async () => {
		const poller = new Poller(world, { event: 'deviceOverdue', options: { maxRetryWait: 300 } });
		await poller.poll();
		const [id] = notOverdue();
		setOverdue(world.sandbox, id, true);
		const outage = world.sandbox.faults.add({ kind: 'status', status: 451, forMs: 150_000 });
		const { result, waits } = await withInstantWaits(world.advance, async () => await poller.poll());
		expect(ids(result)).toEqual([id]);
		expect(outage.hits + 1).toBeGreaterThan(DEFAULT_RETRY.maxAttempts);
		expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(150_000);
	});

	it('a failed poll (500 until the retries give up) leaves the static data as it was; the next poll emits what it missed', async () => {
		const poller = new Poller(world, { event: 'testResultNew', options: { maxRetryWait: 1 } });
		await poller.poll();
		const before = structuredClone(poller.staticData);
		const result = world.sandbox.account.syncTestResult({ device_id: 3, status: 'failed' });
		const fault = world.sandbox.faults.add({ kind: 'status', status: 500, count: 50 });
		const failed = await poller.tick();
		expect(failed.error).toMatchObject({ name: 'NodeApiError', httpCode: '500' });
		expect(fault.hits).toBeGreaterThan(1); // retried, then gave up
		expect(failed.staticData).toEqual(before);
		expect(failed.staticDataChanged).toBe(false);
		world.sandbox.faults.clear();
		expect(ids(await poller.poll())).toEqual([result.id]);
		expect(await poller.poll()).toEqual([]);
	});
});

describe('manual mode ("Fetch Test Event")', () => {
	it('deviceOverdue: a real overdue device even when nothing is new; the static data does not move', async () => {
		const poller = new Poller(world, { event: 'deviceOverdue' });
		await poller.poll();
		const before = structuredClone(poller.staticData);
		const manual = await poller.manual();
		expect(manual.error).toBeUndefined();
		expect(manual.items).toHaveLength(1);
		const device = manual.items![0].json;
		expect(overdueNow(world.sandbox).has(Number(device.id))).toBe(true);
		expect(device).toMatchObject({ next_test_date: expect.any(String), properties: expect.any(Array) });
		expect(manual.staticData).toEqual(before);
		// The sample did not count as seen: a device entering now is still emitted by the next tick.
		const [id] = notOverdue();
		setOverdue(world.sandbox, id, true);
		expect(ids(await poller.poll())).toEqual([id]);
	});

	it('testResultNew with Only Failed Results: the newest failed result; projectUpdated: the latest project', async () => {
		const failedNewest = [...world.sandbox.account.data.testResults.values()].filter((r) => r.status === 'failed').at(-1)!;
		const results = await runPoll({
			parameters: { event: 'testResultNew', onlyFailed: true },
			credentials: credentials(world.sandbox),
			mode: 'manual',
		});
		expect(results.error).toBeUndefined();
		expect(results.items?.map((i) => i.json)).toEqual([expect.objectContaining({ id: failedNewest.id, status: 'failed' })]);
		expect(results.staticData).toEqual({});

		const latest = [...world.sandbox.account.data.projects].sort((a, b) => b.updated_time.localeCompare(a.updated_time))[0];
		const projects = await runPoll({ parameters: { event: 'projectUpdated' }, credentials: credentials(world.sandbox), mode: 'manual' });
		expect(projects.items?.map((i) => (i.json as IDataObject).id)).toEqual([latest.id]);
	});

	it('nothing matches at all: no error, n8n\'s usual "no data", and the log says what was checked', async () => {
		const { result: manual, logs } = await captureLogs(
			async () =>
				await runPoll({
					parameters: {
						event: 'deviceOverdue',
						filters: { text: [{ key: DEVICE.department, conditions: { condition: [{ keyword: 'equals', value: 'No such department' }] } }] },
					},
					credentials: credentials(world.sandbox),
					mode: 'manual',
				}),
		);
		expect(manual.error).toBeUndefined();
		expect(manual.items).toBeNull();
		expect(logs).toContainEqual({
			level: 'info',
			message: expect.stringContaining('No overdue device matches the trigger’s filters right now (checked the overdueDevice list with 1 filter(s))'),
		});
	});
});
