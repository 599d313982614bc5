/** `npm start -- --once --notices-now`: the customer re-test notices in the outbox, the audit log, the company's digest, and once per customer and month across runs. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { noticeMonthOf } from '../../lambdas/email/notices';
import { startSandbox } from '../../sandbox/server';
import { mimeParts } from '../support/localSes';

const run = promisify(execFile);
const START = ['--import', 'tsx', join(__dirname, '..', '..', 'bin', 'start.ts')];
const cwd = join(__dirname, '..', '..');
/** These runs are about notices: a sandbox that is not the embedded one would start the first run's backfill of measured values (up to 90 s a run; tested in test/lambdas/measurementBackfill.test.ts). */
const NO_BACKFILL = { BACKFILL_SHARE: '0' };

describe('npm start: customer re-test notices', () => {
	it('--notices-now writes one notice per customer, logs each to notices-log.jsonl, the digest says so; a second run sends nothing again', async () => {
		const sandbox = await startSandbox({ port: 0 });
		try {
			const dir = mkdtempSync(join(tmpdir(), 'tec-notices-start-'));
			const config = join(dir, 'email.json');
			writeFileSync(config, JSON.stringify({ mailFrom: 'Lab service <service@lab.example.com>', timeZone: 'UTC', recipients: { default: ['ops@lab.example.com', 'planung@lab.example.com'], locales: { 'planung@lab.example.com': 'de' } }, customerNotices: { enabled: true, replyTo: 'booking@lab.example.com' } }));
			const env = { ...process.env, TEC_BASE_URL: sandbox.url, TEC_TOKEN: sandbox.sandboxToken, ...NO_BACKFILL };
			const args = [...START, '--once', '--notices-now', '--digest-now', '--state', join(dir, 'state', 'runner.json'), '--outbox', join(dir, 'outbox'), '--email-config', config];
			const first = await run(process.execPath, args, { cwd, env });
			const month = noticeMonthOf(sandbox.account.today());
			const folder = join(dir, 'outbox', `notices_${month}`);
			const emls = readdirSync(folder).filter((f) => f.endsWith('.eml'));
			expect(emls.length).toBeGreaterThan(0);
			const log = readFileSync(join(dir, 'state', 'notices-log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { address: string; customerId: number; month: string; dueDevices: number[]; overdueDevices: number[] });
			expect(log.map((e) => `${e.address}_c${e.customerId}.eml`).sort()).toEqual(emls.sort());
			expect(log.every((e) => e.month === month)).toBe(true);
			// The run's report names the customer without an address (demo customer 5), when it has devices due.
			const logs = first.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { message: string; noAddress?: string[]; sent?: number });
			const notices = logs.find((l) => l.message === 'Customer re-test notices')!;
			expect(notices.sent).toBe(log.length);
			const digestFolder = readdirSync(join(dir, 'outbox')).find((f) => f.startsWith('digest_'))!;
			const digest = mimeParts(readFileSync(join(dir, 'outbox', digestFolder, 'ops@lab.example.com.eml'), 'utf8'));
			const devices = log.reduce((n, e) => n + e.dueDevices.length + e.overdueDevices.length, 0);
			expect(digest.text).toContain(`Re-test notices sent to ${log.length} customer${log.length === 1 ? '' : 's'} for ${devices} devices.`);
			if (notices.noAddress!.length > 0) expect(digest.text).toMatch(/customers? (has|have) no contact address: /);
			// The German reader's digest says it in German.
			const german = mimeParts(readFileSync(join(dir, 'outbox', digestFolder, 'planung@lab.example.com.eml'), 'utf8'));
			expect(german.text).toContain(`Benachrichtigungen zur Wiederholungsprüfung an ${log.length} Kunden für ${devices} Geräte versandt.`);
			if (notices.noAddress!.length > 0) expect(german.text).toMatch(/Kunden? (hat|haben) keine Kontaktadresse: /);
			// A second run (a restart, asked again): nothing new, the log as it was.
			const second = await run(process.execPath, args, { cwd, env });
			expect(readdirSync(folder).filter((f) => f.endsWith('.eml')).sort()).toEqual(emls.sort());
			expect(readFileSync(join(dir, 'state', 'notices-log.jsonl'), 'utf8').trim().split('\n')).toHaveLength(log.length);
			const again = second.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { message: string; sent?: number; alreadySent?: number }).find((l) => l.message === 'Customer re-test notices')!;
			expect(again).toMatchObject({ sent: 0, alreadySent: log.length });
		} finally {
			await sandbox.stop();
		}
	}, 180_000);

	it('--accounts FILE: each account its own customers\' notices (kept apart: customer ids repeat across accounts), and each recipient\'s digest says what its accounts sent', async () => {
		const sandbox = await startSandbox({ port: 0, accounts: 2 });
		try {
			const dir = mkdtempSync(join(tmpdir(), 'tec-notices-accounts-'));
			const config = join(dir, 'email.json');
			writeFileSync(config, JSON.stringify({ mailFrom: 'Lab service <service@lab.example.com>', timeZone: 'UTC', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } }));
			const accounts = join(dir, 'accounts.json');
			writeFileSync(accounts, JSON.stringify([
				{ id: 'west', environment: 'sandbox', baseUrl: sandbox.url, tokenEnv: 'TEC_TOKEN_WEST' },
				{ id: 'east', environment: 'sandbox', baseUrl: sandbox.url, tokenEnv: 'TEC_TOKEN_EAST', recipients: { default: ['east@lab.example.com'] } },
			]));
			const env = { ...process.env, TEC_BASE_URL: '', TEC_TOKEN: '', TEC_TOKEN_WEST: sandbox.accounts[0].token, TEC_TOKEN_EAST: sandbox.accounts[1].token, ...NO_BACKFILL };
			const args = [...START, '--once', '--notices-now', '--digest-now', '--accounts', accounts, '--state', join(dir, 'state', 'runner.json'), '--outbox', join(dir, 'outbox'), '--email-config', config];
			const first = await run(process.execPath, args, { cwd, env });
			const month = noticeMonthOf(sandbox.account.today());
			const log = readFileSync(join(dir, 'state', 'notices-log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { account: string; customerId: number; address: string; dueDevices: number[]; overdueDevices: number[] });
			const of = (account: string) => log.filter((e) => e.account === account);
			expect(of('west').length).toBeGreaterThan(0);
			expect(of('east').length).toBeGreaterThan(0);
			expect(of('west').length + of('east').length).toBe(log.length);
			// Each account's notices in a folder of its own, one per customer of that account.
			for (const account of ['west', 'east']) {
				const emls = readdirSync(join(dir, 'outbox', `notices_${month}_${account}`)).filter((f) => f.endsWith('.eml'));
				expect(emls.sort()).toEqual([...new Set(of(account).map((e) => `${e.address}_c${e.customerId}.eml`))].sort());
			}
			const reports = first.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { message: string; account?: string; sent?: number }).filter((l) => l.message === 'Customer re-test notices');
			expect(reports.map((r) => [r.account, r.sent])).toEqual([['west', of('west').length], ['east', of('east').length]]);
			// The deployment's recipients follow west (east has its own): each digest says only its accounts' notices.
			const devices = (account: string) => of(account).reduce((n, e) => n + e.dueDevices.length + e.overdueDevices.length, 0);
			const said = (account: string) => `Re-test notices sent to ${of(account).length} customer${of(account).length === 1 ? '' : 's'} for ${devices(account)} devices.`;
			const digestFolder = readdirSync(join(dir, 'outbox')).find((f) => f.startsWith('digest_'))!;
			const ops = mimeParts(readFileSync(join(dir, 'outbox', digestFolder, 'ops@lab.example.com.eml'), 'utf8'));
			const east = mimeParts(readFileSync(join(dir, 'outbox', digestFolder, 'east@lab.example.com.eml'), 'utf8'));
			expect(ops.text).toContain(said('west'));
			expect(east.text).toContain(said('east'));
			expect(east.text).not.toContain(said('west'));
			expect(ops.text).not.toContain(said('east'));
			// Asked again: nothing sent twice, in either account.
			const second = await run(process.execPath, args, { cwd, env });
			const again = second.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { message: string; account?: string; sent?: number; alreadySent?: number }).filter((l) => l.message === 'Customer re-test notices');
			expect(again.map((r) => [r.account, r.sent, r.alreadySent])).toEqual([['west', 0, of('west').length], ['east', 0, of('east').length]]);
		} finally {
			await sandbox.stop();
		}
	}, 180_000);

	it('refuses a template with an unknown placeholder before anything starts, naming it', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-notices-start-'));
		const config = join(dir, 'email.json');
		writeFileSync(config, JSON.stringify({ mailFrom: 'service@lab.example.com', recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true, subject: 'Due: {deviceCount}' } }));
		const out = await run(process.execPath, [...START, '--once', '--state', join(dir, 'runner.json'), '--outbox', join(dir, 'outbox'), '--email-config', config], { cwd, env: { ...process.env, TEC_BASE_URL: '', TEC_TOKEN: '' } }).catch((e: { code: number; stderr: string }) => e);
		expect((out as { code: number }).code).not.toBe(0);
		expect((out as { stderr: string }).stderr).toContain('customerNotices.subject: unknown placeholder {deviceCount}');
	}, 90_000);
});
