/**
 * The results poller's measured-value alerts as the tests of the e-mails need them: the results
 * read upload by upload by the poller's own code (lambdas/pollers/measuredAlerts.ts, a fresh memory
 * of values), its recorded warnings written to a state store, where the digest and the monthly
 * report read them (`measurementWarnings:sandbox`).
 */
import { readMeasurementTrend, type ServiceClient, type StepTrend } from '../../client';
import { connectService } from '../../lambdas/adapters/undiciService';
import { makeEvent } from '../../lambdas/events/event';
import { DETAIL_TYPES } from '../../lambdas/events/schemas';
import { newReport, type PollerContext } from '../../lambdas/pollers/context';
import { MeasuredAlerts } from '../../lambdas/pollers/measuredAlerts';
import { passedOf, readTestResult, type TestResultRecord } from '../../lambdas/pollers/records';
import { silentLog, type StateStore } from '../../lambdas/ports';
import type { Sandbox } from '../../sandbox/server';

/** A store the poller can write to and the e-mails' view can list (memory). */
export type WarningStore = Pick<StateStore, 'get' | 'putMany' | 'list'>;

/** The results given, in the order they were uploaded, through the poller's measured-value alerts; their warnings recorded in `store`. */
export async function recordPollerWarnings(client: ServiceClient, results: readonly TestResultRecord[], store: WarningStore, now: () => number, threshold = 0.8): Promise<void> {
	const ctx = { client, store, environment: 'sandbox', settings: { nearLimitThreshold: threshold }, now, log: silentLog, metrics: { count: () => undefined } } as unknown as PollerContext;
	const alerts = new MeasuredAlerts(ctx, newReport('testResults'));
	for (const r of results) {
		const recorded = makeEvent(
			DETAIL_TYPES.testResultRecorded,
			ctx,
			`test-result-recorded:sandbox:${r.id}`,
			{ testResult: { id: r.id, status: r.status, passed: passedOf(r.status), testDate: r.testDate, syncedTime: r.syncedTime, projectId: r.projectId, testSequence: r.testSequence, tester: r.tester }, device: { id: r.deviceId, customerId: r.customerId } },
			now(),
		);
		// In the poller's order: the warning rows before the events are published, the kept values after.
		await alerts.eventsFor(recorded);
		await alerts.recordWarnings();
		await alerts.record();
	}
}

/** Results by id, read from the service (their list records, as the poller reads them). */
export async function resultsById(client: ServiceClient, ids: readonly number[]): Promise<TestResultRecord[]> {
	const out: TestResultRecord[] = [];
	for (const id of ids) out.push(readTestResult(await client.call('testResult.get', { pathParams: { id } }))!);
	return out;
}

/** One step of a device's trend as the node's Device → Get Measurement Trend reads it (client/measurementsRead.ts), from the sandbox now. */
export async function nodeTrendOf(sandbox: Sandbox, deviceId: number, step: string): Promise<StepTrend | undefined> {
	const client = connectService({ baseUrl: sandbox.url, token: sandbox.sandboxToken, environment: 'sandbox' });
	const { steps } = await readMeasurementTrend(client, deviceId);
	return steps.find((s) => s.step === step);
}
