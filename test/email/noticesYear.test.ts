/** A simulated year of re-test notices: the sandbox's clock on the first of each month, the notices written as npm start writes them, each the sandbox's truth, once per customer and month, in both languages. */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readNoticeInput } from '../../client/noticesRead';
import { createLocalMail } from '../../lambdas/email/local';
import { noticeMonthOf } from '../../lambdas/email/notices';
import { silentLog } from '../../lambdas/ports';
import { DEVICE } from '../../sandbox/properties';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { mimeParts } from '../support/localSes';
import { pollerClient } from '../reliability/support';

const RATE = 200;
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, ratePerSecond: RATE });
});
afterAll(() => sandbox.stop());

async function setClock(now: string): Promise<void> {
	const response = await fetch(`${sandbox.adminUrl}/clock`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ now }) });
	expect(response.status).toBe(200);
}

/** Each customer's devices due in `month` and overdue today, by the sandbox's own records. */
function truth(month: string): Map<number, { due: number[]; overdue: number[] }> {
	const today = sandbox.account.today();
	const out = new Map<number, { due: number[]; overdue: number[] }>();
	for (const d of sandbox.account.table('device').values()) {
		const next = d.values[DEVICE.nextTest];
		if (typeof next !== 'string' || d.customer_id === undefined) continue;
		const e = out.get(d.customer_id) ?? { due: [], overdue: [] };
		if (next.slice(0, 7) === month) e.due.push(d.id);
		if (next < today) e.overdue.push(d.id);
		out.set(d.customer_id, e);
	}
	return new Map([...out].filter(([, e]) => e.due.length > 0));
}

const ids = (list: Array<{ id: number }>) => list.map((d) => d.id).sort((a, b) => a - b);

describe('a simulated year of re-test notices', () => {
	it('12 first-of-month runs (each run twice, each a restart, languages alternating): every notice the truth, once per customer and month', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-notices-year-'));
		const client = pollerClient(sandbox, sandbox.sandboxToken, { ratePerSecond: RATE });
		const start = new Date(`${sandbox.account.today().slice(0, 7)}-01T00:00:00Z`);
		let checkedCustomers = 0;
		for (let m = 1; m <= 12; m++) {
			const first = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + m, 1, 9));
			await setClock(first.toISOString());
			const locale = m % 2 === 0 ? 'de' : 'en';
			const config = join(dir, 'email.json');
			writeFileSync(config, JSON.stringify({ mailFrom: 'service@lab.example.com', timeZone: 'UTC', locale, recipients: { default: ['ops@lab.example.com'] }, customerNotices: { enabled: true } }));
			const month = noticeMonthOf(sandbox.account.today());
			const want = truth(month);
			for (let attempt = 0; attempt < 2; attempt++) {
				// A new process each time: the state and outbox are the files.
				const mail = createLocalMail({ environment: 'sandbox', outboxDir: join(dir, 'outbox'), statePath: join(dir, 'email.json.state'), configPath: config, log: silentLog, view: { list: async function* () {} }, now: () => sandbox.account.now(), readNotices: [{ read: (timeZone) => readNoticeInput(client, () => sandbox.account.now(), timeZone) }] });
				await mail.afterCycle(false, false, attempt === 1);
			}
			const folder = join(dir, 'outbox', `notices_${month}`);
			const receipts = want.size === 0 ? [] : readdirSync(folder).filter((f) => f.endsWith('.json'));
			const got = new Map<number, { due: number[]; overdue: number[] }>();
			for (const file of receipts) {
				const { content } = JSON.parse(readFileSync(join(folder, file), 'utf8'));
				expect(got.has(content.customer.id), `${month}: customer ${content.customer.id} twice`).toBe(false);
				got.set(content.customer.id, { due: ids(content.due), overdue: ids(content.overdue) });
				const eml = mimeParts(readFileSync(join(folder, file.replace(/\.json$/, '.eml')), 'utf8'));
				expect(eml.text).toContain(locale === 'de' ? 'Wiederholungsprüfung' : 're-test');
				expect(readFileSync(join(folder, file.replace(/\.json$/, '.html')), 'utf8')).toContain(`<html lang="${locale}">`);
			}
			// Customer 5 has no contact address: never sent, everyone else exactly the truth.
			const expected = new Map([...want].filter(([id]) => id !== 5).map(([id, e]) => [id, { due: e.due.sort((a, b) => a - b), overdue: e.overdue.sort((a, b) => a - b) }]));
			expect(new Map([...got].sort(([a], [b]) => a - b)), month).toEqual(new Map([...expected].sort(([a], [b]) => a - b)));
			checkedCustomers += got.size;
		}
		// The audit log: one line per notice, none twice.
		const log = readFileSync(join(dir, 'notices-log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { month: string; customerId: number });
		expect(log).toHaveLength(checkedCustomers);
		expect(new Set(log.map((e) => `${e.month}/${e.customerId}`)).size).toBe(log.length);
		expect(checkedCustomers).toBeGreaterThan(24);
	}, 300_000);
});
