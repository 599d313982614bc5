/**
 * The monthly compliance report holds each test result read once, as a map by id would hold them
 * (the first read's place, the last read's record), in the compact columns it keeps
 * while the pages arrive, and when the service answers the ids out of order too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monthBefore, readComplianceReportInput, type HttpRequest, type HttpResponse, type ListQuery, type RateTestResult } from '../../client';
import { wholeList } from '../../client/complianceSnapshot';
import { rateTestResultOf } from '../../client/failureRatesRead';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { recordingClient } from '../support/recordingClient';

const RATE = 200;
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, ratePerSecond: RATE });
});
afterAll(() => sandbox.stop());

/** The first page of test results with its first two records swapped (a service that ignores the ordering, once). */
function swapFirstTwo(): (request: HttpRequest, response: HttpResponse) => HttpResponse {
	let done = false;
	return (request, response) => {
		if (done || !new URL(request.url).pathname.includes('/tests_performed/') || typeof response.body !== 'string') return response;
		const page = JSON.parse(response.body) as { results: unknown[] };
		if (page.results.length < 2) return response;
		done = true;
		[page.results[0], page.results[1]] = [page.results[1], page.results[0]];
		return { ...response, body: JSON.stringify(page) };
	};
}

/** What the report holds, and what a map by id of every record read (through the same answers) holds. */
async function readBoth(answer?: () => (request: HttpRequest, response: HttpResponse) => HttpResponse) {
	const month = monthBefore(sandbox.account.today().slice(0, 7));
	const input = await readComplianceReportInput(recordingClient(sandbox, RATE, undefined, answer?.()).client, month, sandbox.account.today());
	const { client } = recordingClient(sandbox, RATE, undefined, answer?.());
	const query: ListQuery = { filters: [{ key: 'test_date', conditions: [{ keyword: 'newerOrSame', value: input.since }] }], ordering: { key: 'id', direction: 'asc' } };
	const byId = new Map<number, RateTestResult>();
	for await (const raw of client.items('testResult.list', query, wholeList(client))) {
		const t = rateTestResultOf(raw);
		if (t) byId.set(t.id, t);
	}
	return { tests: input.tests, expected: [...byId.values()] };
}

describe('the monthly compliance report holds each test result once', () => {
	it('in ascending ids, over several pages: the results of a map by id, in its order, with their fields', async () => {
		const { tests, expected } = await readBoth();
		expect(expected.length).toBeGreaterThan(1000);
		expect(tests).toEqual(expected);
		expect(tests.some((t) => t.failed === true) && tests.some((t) => t.failed === false)).toBe(true);
	});

	it('ids out of order: still the results of a map by id, in its order', async () => {
		const { tests, expected } = await readBoth(swapFirstTwo);
		expect(expected[0].id).toBeGreaterThan(expected[1].id);
		expect(tests).toEqual(expected);
	});
});
