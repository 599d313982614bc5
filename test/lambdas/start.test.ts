import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { schemaErrors } from '../support/eventSchemas';
import { LocalAws } from '../support/localAws';

const run = promisify(execFile);
const START = ['--import', 'tsx', join(__dirname, '..', '..', 'bin', 'start.ts')];
const cwd = join(__dirname, '..', '..');

describe('npm start (the pollers on the embedded sandbox)', () => {
	it('--once prints each event as one JSON line, logs on stderr, and a restart with the same state re-emits nothing', async () => {
		const state = join(mkdtempSync(join(tmpdir(), 'tec-start-')), 'state.json');
		// BACKFILL_SHARE unset, as the README's `npm start` runs it.
		const { BACKFILL_SHARE: _share, ...unset } = process.env;
		const first = await run(process.execPath, [...START, '--once', '--state', state], { cwd, env: { ...unset, TEC_BASE_URL: '', TEC_TOKEN: '' } });
		const events = first.stdout.trim().split('\n').map((l) => JSON.parse(l));
		expect(events.length).toBeGreaterThan(5);
		for (const e of events) {
			expect(e.source).toBe('test-equipment-cloud');
			expect(schemaErrors(e)).toEqual([]);
		}
		expect(events.filter((e) => e['detail-type'] === 'Overdue Devices Digest')).toHaveLength(1);
		const logs = first.stderr.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
		const started = logs.find((l) => l.message.startsWith('Started the embedded sandbox'));
		expect(started.sandboxUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(JSON.parse(readFileSync(state, 'utf8'))).toHaveProperty('overdue:sandbox');
		// The embedded sandbox's first cycle does not wait for a backfill of measured values.
		expect(logs.filter((l) => String(l.message).startsWith('Backfill of measured values'))).toEqual([]);

		const second = await run(process.execPath, [...START, '--once', '--state', state], { cwd, env: { ...process.env, TEC_BASE_URL: '', TEC_TOKEN: '' } });
		expect(second.stdout.trim()).toBe('');
	}, 60_000);

	it('--webhook POSTs every event to the URL (an n8n Webhook node, here a local server)', async () => {
		const received: Array<{ body: { 'detail-type': string }; dedupe: string }> = [];
		const server = createServer((req, res) => {
			let body = '';
			req.on('data', (c) => (body += c));
			req.on('end', () => {
				// The first delivery fails: the runner retries.
				if (received.length === 0 && !(server as unknown as { failed?: boolean }).failed) {
					(server as unknown as { failed?: boolean }).failed = true;
					res.writeHead(503).end();
					return;
				}
				received.push({ body: JSON.parse(body), dedupe: String(req.headers['x-dedupe-key']) });
				res.writeHead(200).end('{}');
			});
		});
		await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
		const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/tec`;
		const state = join(mkdtempSync(join(tmpdir(), 'tec-start-')), 'state.json');
		const out = await run(process.execPath, [...START, '--once', '--state', state, '--webhook', url], { cwd, env: { ...process.env, TEC_BASE_URL: '', TEC_TOKEN: '' } });
		server.close();
		const lines = out.stdout.trim().split('\n').map((l) => JSON.parse(l));
		expect(received.map((r) => r.dedupe).sort()).toEqual(lines.map((l) => l.detail.metadata.dedupeKey).sort());
		expect(received.some((r) => r.body['detail-type'] === 'Device Overdue')).toBe(true);
	}, 60_000);

	it('with EVENT_BUS_NAME and AWS credentials, events also go to EventBridge', async () => {
		const aws = await new LocalAws().start();
		try {
			const state = join(mkdtempSync(join(tmpdir(), 'tec-start-')), 'state.json');
			const out = await run(process.execPath, [...START, '--once', '--state', state], {
				cwd,
				env: {
					...process.env,
					TEC_BASE_URL: '',
					TEC_TOKEN: '',
					EVENT_BUS_NAME: 'tec-local',
					AWS_REGION: 'eu-central-1',
					AWS_ACCESS_KEY_ID: 'test',
					AWS_SECRET_ACCESS_KEY: 'test',
					AWS_ENDPOINT_URL_EVENTBRIDGE: aws.url,
				},
			});
			const lines = out.stdout.trim().split('\n').map((l) => JSON.parse(l));
			expect(aws.accepted.length).toBe(lines.length);
			expect(aws.accepted.every((e) => e.EventBusName === 'tec-local')).toBe(true);
			expect(aws.events().map((e) => e.detail.metadata.dedupeKey).sort()).toEqual(lines.map((l) => l.detail.metadata.dedupeKey).sort());
		} finally {
			await aws.stop();
		}
	}, 60_000);

	it('bad arguments exit with 2 and say what is valid; SIGTERM stops the loop cleanly', async () => {
		await expect(run(process.execPath, [...START, '--interval', 'soon'], { cwd })).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--interval must be a number of seconds') });
		await expect(run(process.execPath, [...START, '--webhook', 'ftp://x'], { cwd })).rejects.toMatchObject({ code: 2 });
		for (const timeout of ['0', '0.5', 'later']) {
			await expect(run(process.execPath, [...START, '--timeout', timeout], { cwd })).rejects.toMatchObject({
				code: 2,
				stderr: expect.stringContaining(`--timeout must be a number of seconds of at least 1 (how long one request waits for an answer), got "${timeout}"`),
			});
		}
		const child = spawn(process.execPath, [...START, '--interval', '30', '--state', join(mkdtempSync(join(tmpdir(), 'tec-start-')), 's.json')], { cwd, env: { ...process.env, TEC_BASE_URL: '', TEC_TOKEN: '' } });
		let stderr = '';
		child.stderr.on('data', (c) => (stderr += c));
		await new Promise<void>((resolve) => {
			const timer = setInterval(() => {
				if (stderr.includes('"poller":"testResults"')) {
					clearInterval(timer);
					resolve();
				}
			}, 50);
		});
		child.kill('SIGTERM');
		const code = await new Promise((r) => child.on('exit', r));
		expect(code).toBe(0);
	}, 60_000);
});
