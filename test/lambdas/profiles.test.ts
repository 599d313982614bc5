/**
 * The three pollers through the `npm start` runner, and the digest e-mail, with each variant
 * profile against the sandbox serving that layout: the events and the e-mail equal those of the
 * default layout over the same account, and the overdue events are the sandbox's ground truth.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ServiceProfile } from '../../client';
import { connectService } from '../../lambdas/adapters/undiciService';
import { createLocalMail } from '../../lambdas/email/local';
import { createRunner } from '../../lambdas/runner';
import { startSandbox } from '../../sandbox/server';
import { VARIANTS, variantFile } from '../support/profiles';
import { FIXED_NOW } from '../support/sandbox';
import { overdueNow } from '../support/trigger';

const SIZE = { devices: 300, customers: 8, testResults: 120 };
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface Event {
	'detail-type': string;
	detail: { metadata: { dedupeKey: string }; data: { device?: { id: number } } };
}

async function runOnce(profile?: ServiceProfile) {
	const sandbox = await startSandbox({ port: 0, size: SIZE, now: () => FIXED_NOW, profile });
	const dir = mkdtempSync(join(tmpdir(), 'tec-profile-'));
	const lines: string[] = [];
	const now = () => sandbox.account.now();
	// The digest reads today's truth from the runner's state (as npm start wires it).
	const mail = createLocalMail({ environment: 'sandbox', outboxDir: join(dir, 'outbox'), statePath: join(dir, 'mail.json'), configPath: join(__dirname, '../../cdk.json'), log: silent, view: { list: (ns) => runner.state.list(ns) }, now });
	const runner = createRunner({
		accounts: [{ client: connectService({ baseUrl: sandbox.url, token: sandbox.sandboxToken, environment: 'sandbox', profile }), environment: 'sandbox' }],
		statePath: join(dir, 'state.json'),
		writeLine: (line) => lines.push(line),
		log: silent,
		publishers: [mail.publisher],
		now,
	});
	try {
		const reports = await runner.cycle();
		const overdueFirst = [...overdueNow(sandbox)].sort((a, b) => a - b);
		// Results the test equipment uploads after the first run (which only notes the newest upload):
		// the second run announces them, the failed ones with the evidence of their detailed result.
		sandbox.account.clockOffsetMs += 60_000;
		for (const [device_id, status] of [[3, 'failed'], [8, 'passed'], [11, 'failed']] as const) sandbox.account.syncTestResult({ device_id, status, test_date: sandbox.account.today() });
		reports.push(...(await runner.cycle()));
		const files = await mail.afterCycle(true);
		const events = lines.map((l) => JSON.parse(l) as Event);
		// What differs between two runs by design: event ids, times, the e-mail's own headers.
		const stable = (e: Event) => JSON.stringify(e, (k, v) => (['id', 'time', 'occurredAt'].includes(k) && typeof v === 'string' ? undefined : v));
		const mails = files.map((f) => readFileSync(f, 'utf8').replace(/^(Message-ID|Date|Content-ID|--[^\n]*boundary[^\n]*|.*=_[A-Za-z0-9]+.*)$/gim, ''));
		return { reports, events, stable: events.map(stable).sort(), mails, overdueFirst, overdue: [...overdueNow(sandbox)].sort((a, b) => a - b) };
	} finally {
		runner.close();
		await sandbox.stop();
	}
}

describe('the pollers and the digest e-mail with a service profile', () => {
	it('each variant gives the events and the e-mail of the default layout; Device Overdue is the ground truth', async () => {
		const reference = await runOnce();
		expect(reference.reports.every((r) => r.complete)).toBe(true);
		const idsOf = (type: string) => reference.events.filter((e) => e['detail-type'] === type).map((e) => Number(e.detail.data.device?.id)).sort((a, b) => a - b);
		// The first run announces every overdue device; a device tested by the uploads leaves the list (Resolved).
		expect(idsOf('Device Overdue')).toEqual(reference.overdueFirst);
		const resolved = new Set(idsOf('Device Overdue Resolved'));
		expect(idsOf('Device Overdue').filter((id) => !resolved.has(id))).toEqual(reference.overdue);
		expect(reference.mails.length).toBeGreaterThan(0);
		const types = new Set(reference.events.map((e) => e['detail-type']));
		for (const type of ['Device Overdue', 'Device Due Soon', 'Test Result Failed', 'Overdue Devices Digest']) expect(types).toContain(type);
		for (const [name, profile] of Object.entries(VARIANTS)) {
			const variant = await runOnce(profile);
			expect(variant.reports.map((r) => [r.poller, r.complete]), name).toEqual(reference.reports.map((r) => [r.poller, r.complete]));
			expect(variant.stable, name).toEqual(reference.stable);
			expect(variant.mails, name).toEqual(reference.mails);
		}
	}, 120_000);
});

describe('npm start -- --profile FILE (and TEC_PROFILE)', () => {
	const START = ['--import', 'tsx', join(__dirname, '..', '..', 'bin', 'start.ts')];
	const run = promisify(execFile);
	const env = { ...process.env, TEC_BASE_URL: '', TEC_TOKEN: '', TEC_PROFILE: '' };

	it('the embedded sandbox serves the profile\'s layout and the pollers read it; a bad profile exits 2 naming the key', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-start-profile-'));
		const out = await run(process.execPath, [...START, '--once', '--state', join(dir, 'state.json'), '--outbox', join(dir, 'outbox'), '--profile', variantFile('items-total')], { cwd: join(__dirname, '../..'), env });
		const types = out.stdout.trim().split('\n').map((l) => (JSON.parse(l) as Event)['detail-type']);
		expect(types).toContain('Device Overdue');
		expect(types).toContain('Overdue Devices Digest');
		const bad = join(dir, 'bad.json');
		writeFileSync(bad, JSON.stringify({ paging: { style: 'pages' } }));
		const refused = await run(process.execPath, [...START, '--once', '--state', join(dir, 'state2.json')], { cwd: join(__dirname, '../..'), env: { ...env, TEC_PROFILE: bad } }).catch((e: { code: number; stderr: string }) => e);
		expect(refused).toMatchObject({ code: 2 });
		expect((refused as { stderr: string }).stderr).toContain('service profile: paging.style: must be limitOffset or pageNumber, got "pages"');
	}, 60_000);
});
