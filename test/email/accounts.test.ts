import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalMail } from '../../lambdas/email/local';
import { recipientsSchema } from '../../lambdas/email/settings';
import { createRunner, type Runner } from '../../lambdas/runner';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { DEVICE } from '../../sandbox/properties';
import { pollerClient } from '../reliability/support';

/**
 * The e-mails of several accounts, end to end as `npm start -- --accounts` wires them: the runner
 * over three accounts of one sandbox, the collector and the digest reading each account's truth.
 * Routing per account; one digest per recipient with a section per account, never mixed.
 */
const IDS = ['site-a', 'site-b', 'site-c'];
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ accounts: 3, size: { devices: 40, customers: 3, testResults: 5 } });
	// Device ids and barcodes repeat across accounts (each numbers its own): mark each account's barcodes.
	sandbox.accounts.forEach(({ account }, i) => {
		for (const d of account.data.devices.values()) d.values[DEVICE.idBarcode] = `S${i}-${String(d.values[DEVICE.idBarcode])}`;
	});
});
afterAll(async () => {
	await sandbox.stop();
});

/** The ID barcodes of an account's overdue devices. */
function overdueBarcodes(i: number): string[] {
	const a = sandbox.accounts[i].account;
	return [...a.data.devices.values()].filter((d) => a.isOverdue(d)).map((d) => String(d.values[DEVICE.idBarcode]));
}

/** The accounts whose devices a piece of an e-mail shows (by their barcodes' marks). */
const accountsShown = (html: string) => [...new Set([...html.matchAll(/ID S(\d)-/g)].map((m) => Number(m[1])))].sort();

describe('e-mails of several accounts', () => {
	it('route each account by its own recipients; a recipient of several gets one digest, a section per account', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-mail-accounts-'));
		const settingsPath = join(dir, 'settings.json');
		writeFileSync(settingsPath, JSON.stringify({ mailFrom: 'alerts@lab.example.com', recipients: { default: ['ops@example.com'] }, timeZone: 'UTC' }));
		const recipients = (...to: string[]) => recipientsSchema().parse({ default: to });
		// The mail reads the runner's state, and the runner publishes to the mail: made in that order.
		const made: { runner?: Runner } = {};
		const mail = createLocalMail({
			environment: 'sandbox',
			outboxDir: join(dir, 'outbox'),
			statePath: join(dir, 'email.json'),
			configPath: settingsPath,
			log: { info: () => undefined, warn: () => undefined, error: () => undefined },
			view: { list: (ns) => made.runner!.state.list(ns) },
			now: () => sandbox.account.now(),
			accounts: [
				{ account: 'site-a', recipients: recipients('a-lead@example.com', 'both@example.com') },
				{ account: 'site-b', recipients: recipients('b-lead@example.com', 'both@example.com') },
				// No recipients of its own: the deployment's.
				{ account: 'site-c' },
			],
		});
		const runner = createRunner({
			accounts: IDS.map((id, i) => ({ client: pollerClient(sandbox, sandbox.accounts[i].token), environment: 'sandbox' as const, account: id, partition: id })),
			statePath: join(dir, 'runner.json'),
			writeLine: () => undefined,
			log: { info: () => undefined, warn: () => undefined, error: () => undefined },
			publishers: [mail.publisher],
			now: () => sandbox.account.now(),
		});
		made.runner = runner;
		try {
			await runner.cycle();
			expect(runner.failed).toEqual([]);
			const written = await mail.afterCycle(true);
			const html = (to: string) => readFileSync(written.find((f) => f.endsWith(`${to}.eml`))!.replace(/\.eml$/, '.html'), 'utf8');
			expect(written.map((f) => f.split('/').pop()).sort()).toEqual(['a-lead@example.com.eml', 'b-lead@example.com.eml', 'both@example.com.eml', 'ops@example.com.eml']);

			const [a, b, c] = [0, 1, 2].map(overdueBarcodes);
			for (const list of [a, b, c]) expect(list.length).toBeGreaterThan(0);
			// Following two accounts: one e-mail, site-a's section then site-b's, each with its own devices only.
			const [head, sectionB] = html('both@example.com').split('Account site-b');
			const sectionA = head.slice(head.indexOf('Account site-a'));
			expect(sectionA.length).toBeGreaterThan(0);
			expect(accountsShown(sectionA)).toEqual([0]);
			expect(accountsShown(sectionB)).toEqual([1]);
			for (const code of a) expect(sectionA).toContain(`ID ${code}`);
			for (const code of b) expect(sectionB).toContain(`ID ${code}`);
			// Following one account: its digest only; site-c, without recipients of its own, goes to the deployment's.
			expect(accountsShown(html('a-lead@example.com'))).toEqual([0]);
			expect(accountsShown(html('b-lead@example.com'))).toEqual([1]);
			expect(accountsShown(html('ops@example.com'))).toEqual([2]);
			for (const code of c) expect(html('ops@example.com')).toContain(`ID ${code}`);
		} finally {
			runner.close();
		}
	}, 60_000);
});
