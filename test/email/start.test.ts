import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createLocalMail } from '../../lambdas/email/local';
import { silentLog } from '../../lambdas/ports';
import { FileStateStore } from '../../lambdas/adapters/fileStateStore';
import { device, overdue, pollersSaw } from '../support/emailEvents';
import { mimeParts } from '../support/localSes';
import { spawnRunner, waitFor } from '../reliability/support';
import { startSandbox } from '../../sandbox/server';
import { dueDatesByTheRules, figuresOf } from '../support/dueDateRules';
import { addDays, monthBefore } from '../../client';

const run = promisify(execFile);
const START = ['--import', 'tsx', join(__dirname, '..', '..', 'bin', 'start.ts')];
const cwd = join(__dirname, '..', '..');
const env = { ...process.env, TEC_BASE_URL: '', TEC_TOKEN: '' };

describe('npm start: the alert e-mails in an outbox folder', () => {
	it('--digest-now writes each recipient\'s digest (MIME with both parts, and the HTML) and says where', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-outbox-'));
		const config = join(dir, 'email.json');
		writeFileSync(config, JSON.stringify({ mailFrom: 'Lab alerts <alerts@lab.example.com>', timeZone: 'Europe/Berlin', recipients: { default: ['ops@example.com'], escalation: { afterDays: 1, to: ['boss@example.com'] } } }));
		const out = await run(process.execPath, [...START, '--once', '--digest-now', '--state', join(dir, 'state.json'), '--outbox', join(dir, 'outbox'), '--email-config', config], { cwd, env });
		const logs = out.stderr.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { message: string; outbox?: string; files?: string[] });
		expect(logs.find((l) => l.message.startsWith('Alert e-mails go to the outbox folder'))?.outbox).toBe(join(dir, 'outbox'));
		const written = logs.find((l) => l.message.startsWith('Wrote '))!;
		expect(written.files!.map((f) => f.split('/').pop()).sort()).toEqual(['boss@example.com.eml', 'ops@example.com.eml']);
		const folder = readdirSync(join(dir, 'outbox'))[0];
		expect(readdirSync(join(dir, 'outbox', folder)).filter((f) => !f.endsWith('.json')).sort()).toEqual(['boss@example.com.eml', 'boss@example.com.html', 'ops@example.com.eml', 'ops@example.com.html']);
		const eml = mimeParts(readFileSync(join(dir, 'outbox', folder, 'ops@example.com.eml'), 'utf8'));
		expect(eml.headers.from).toBe('"Lab alerts" <alerts@lab.example.com>');
		expect(eml.headers.subject).toMatch(/^Calibration digest .*: \d+ newly overdue(, [^(]+)? \(sandbox\)$/);
		expect(eml.text).toMatch(/NEWLY OVERDUE SINCE THE LAST DIGEST \(\d+\)/);
		expect(eml.html).toBe(readFileSync(join(dir, 'outbox', folder, 'ops@example.com.html'), 'utf8'));
	}, 90_000);

	it('--report-now on a fresh install: last month\'s report with all 12 months filled, exact to the rebuild\'s rules (.eml with its CSVs, .html, .json)', async () => {
		// An account with years of results (the sandbox's demo), a state file that does not exist yet.
		const sandbox = await startSandbox({ port: 0 });
		try {
			const dir = mkdtempSync(join(tmpdir(), 'tec-outbox-'));
			const config = join(dir, 'email.json');
			// Interval settings of its own (the e-mail settings' intervals), one department row no device has.
			writeFileSync(config, JSON.stringify({ mailFrom: 'alerts@lab.example.com', timeZone: 'Europe/Berlin', recipients: { default: ['ops@example.com'] }, intervals: { defaultEnvironment: 'office', departments: { Nowhere: { maxMonths: 6 } } } }));
			const out = await run(process.execPath, [...START, '--once', '--report-now', '--state', join(dir, 'state.json'), '--outbox', join(dir, 'outbox'), '--email-config', config], { cwd, env: { ...env, TEC_BASE_URL: sandbox.url, TEC_TOKEN: sandbox.sandboxToken, BACKFILL_SHARE: '0' } });
			const folder = readdirSync(join(dir, 'outbox')).find((f) => f.startsWith('compliance_'))!;
			expect(folder).toMatch(/^compliance_\d{4}-\d{2}-now-\d{6}$/);
			expect(readdirSync(join(dir, 'outbox', folder)).sort()).toEqual(['ops@example.com.eml', 'ops@example.com.html', 'ops@example.com.json']);
			const eml = mimeParts(readFileSync(join(dir, 'outbox', folder, 'ops@example.com.eml'), 'utf8'));
			expect(eml.headers.subject).toMatch(/^Calibration compliance /);
			const { content } = JSON.parse(readFileSync(join(dir, 'outbox', folder, 'ops@example.com.json'), 'utf8'));
			// The history's days are the service's; the preview is as of the report's local day (Europe/Berlin).
			const today = sandbox.account.today();
			const asOf = content.asOf as string;
			expect([today, addDays(today, 1)]).toContain(asOf);
			expect(content.intervals.settings).toMatchObject({ defaultEnvironment: 'office', departments: { Nowhere: { maxMonths: 6 } } });
			const warned = out.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { message: string; departments?: string[] });
			expect(warned.find((l) => l.message.startsWith('intervals.departments: no device has these departments'))?.departments).toEqual(['Nowhere']);

			// The figures by the rules (docs/compliance.md), counted here from the sandbox's own record.
			const truth = dueDatesByTheRules(sandbox.account, today);
			const month = content.month as string;
			const want = figuresOf(truth, month, asOf);
			expect((({ group: _g, id: _i, name: _n, month: _m, firstSeenOverdue: _f, ...rest }) => rest)(content.all)).toEqual(want);
			expect(content.all.firstSeenOverdue).toBe(0);
			// Every month of the chart is filled, each as of the first of the next month.
			expect(content.trend).toHaveLength(12);
			for (const t of content.trend as Array<{ month: string; due: number; onTimeRate: number | null }>) {
				const f = figuresOf(truth, t.month, t.month === month ? asOf : `${monthBefore(t.month, -1)}-01`);
				expect(t.due, t.month).toBe(f.due);
				expect(t.onTimeRate, t.month).toBe(f.onTimeRate);
				expect(t.due, t.month).toBeGreaterThan(0);
			}
			expect(content.rebuiltMonths).toEqual((content.trend as Array<{ month: string }>).map((t) => t.month));
			expect(eml.text).toContain('rest on the history rebuilt from the test results');
			expect(eml.text).not.toContain('already overdue when the history first saw');
			expect(eml.attachments.map((a: { filename: string }) => a.filename)).toEqual([`calibration-compliance-${month}.csv`, `failure-rates-${month}.csv`, `forecast-${month}.csv`, `interval-recommendations-${month}.csv`, `devices-out-of-line-${month}.csv`]);
			expect(eml.attachments[0].content.split('\r\n').length - 2).toBe(content.all.due);
			// The failure rates: every group's tests are the account's results of the window of the devices
			// it lists, and the demo's scrapped devices (its recycle bin, as the due-date poller read it) with
			// their results join their type's group (docs/compliance.md, scrapped devices).
			const rates = content.failureRates[24].designation;
			const results = [...sandbox.account.data.testResults.values()].filter((r) => r.test_date >= rates.from && r.test_date <= rates.to);
			const listed = results.filter((r) => sandbox.account.data.devices.has(r.device_id));
			expect(results.length - listed.length).toBeGreaterThan(0);
			expect(content.scrappedCounted).toBe(true);
			expect(rates.totals.scrappedDevices).toBeGreaterThan(0);
			expect(rates.groups.reduce((n: number, g: { tests: number }) => n + g.tests, 0)).toBe(results.length);
		} finally {
			await sandbox.stop();
		}
	}, 120_000);

	it('bad e-mail settings stop it with an error naming the field', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-outbox-'));
		const config = join(dir, 'email.json');
		writeFileSync(config, JSON.stringify({ mailFrom: 'alerts@lab.example.com', recipients: { default: ['nope'] } }));
		const failed = await run(process.execPath, [...START, '--once', '--state', join(dir, 'state.json'), '--email-config', config], { cwd, env }).catch((e: { code: number; stderr: string }) => e);
		expect((failed as { code: number }).code).toBe(1);
		expect((failed as { stderr: string }).stderr).toContain('recipients.default: \\"nope\\" is not an e-mail address');
	}, 90_000);
});

describe('the local digest clock', () => {
	it('writes the digest once a day, at the digest hour of the time zone', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-outbox-'));
		const config = join(dir, 'email.json');
		writeFileSync(config, JSON.stringify({ mailFrom: 'alerts@lab.example.com', timeZone: 'Europe/Berlin', digestHour: 7, recipients: { default: ['ops@example.com'] } }));
		let now = Date.parse('2026-11-20T05:59:00Z'); // 06:59 in Berlin
		const pollers = new FileStateStore(join(dir, 'runner.json'));
		const mail = createLocalMail({ environment: 'sandbox', outboxDir: join(dir, 'outbox'), statePath: join(dir, 'email.json.state'), configPath: config, log: silentLog, view: pollers, now: () => now });
		const e = overdue(device(1, { customerName: null, department: null }));
		await pollersSaw(pollers, e);
		await mail.publisher.publish([e]);
		expect(await mail.afterCycle()).toEqual([]);
		now = Date.parse('2026-11-20T06:00:00Z'); // 07:00
		expect(await mail.afterCycle()).toEqual([join(dir, 'outbox', 'digest_2026-11-20', 'ops@example.com.eml')]);
		now += 3_600_000;
		expect(await mail.afterCycle()).toEqual([]);
		now = Date.parse('2026-11-21T06:00:00Z');
		// The next day: the device is still overdue.
		expect(await mail.afterCycle()).toEqual([join(dir, 'outbox', 'digest_2026-11-21', 'ops@example.com.eml')]);
	});
});

describe('npm start: the e-mails on the pollers\' clock', () => {
	it('the embedded sandbox\'s clock moved a day on brings the next digest', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-outbox-'));
		const config = join(dir, 'email.json');
		writeFileSync(config, JSON.stringify({ mailFrom: 'alerts@lab.example.com', timeZone: 'UTC', digestHour: 0, recipients: { default: ['ops@example.com'] } }));
		const runner = spawnRunner(['--interval', '1', '--state', join(dir, 'state.json'), '--outbox', join(dir, 'outbox'), '--email-config', config], { TEC_BASE_URL: '', TEC_TOKEN: '' });
		try {
			const outbox = () => {
				try {
					return readdirSync(join(dir, 'outbox')).filter((f) => f.startsWith('digest_'));
				} catch {
					return [];
				}
			};
			const [first] = await waitFor(() => (outbox().length > 0 ? outbox() : undefined), 60_000, 'the first digest');
			const adminUrl = String(runner.logs().find((l) => l.message === 'Started the embedded sandbox (set TEC_BASE_URL and TEC_TOKEN to poll a real account)')?.adminUrl);
			const moved = await fetch(`${adminUrl}/clock`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advance_days: 1 }) });
			expect(moved.status).toBe(200);
			const day = first.slice('digest_'.length);
			const next = `digest_${new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)}`;
			await waitFor(() => outbox().includes(next), 60_000, `the digest of the next day (${next})`);
			expect(outbox().sort()).toEqual([first, next]);
		} finally {
			runner.child.kill('SIGTERM');
			await runner.exited();
		}
	}, 150_000);
});
