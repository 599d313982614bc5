import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

/** Issue 3, Starting it: the CLI's first stdout line, per-request logs without tokens, clean stop. */

const ROOT = resolve(__dirname, '../..');
const running = new Set<ChildProcessWithoutNullStreams>();

interface Started {
	child: ChildProcessWithoutNullStreams;
	first: { url: string; sandboxToken: string; adminUrl: string; [k: string]: unknown };
	/** Lines after the first one, as they arrive. */
	lines: string[];
	exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startCli(args: string[]): Promise<Started> {
	const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', ...args], { cwd: ROOT });
	running.add(child);
	const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
		child.once('exit', (code, signal) => {
			running.delete(child);
			done({ code, signal });
		}),
	);
	let stderr = '';
	child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
	const lines: string[] = [];
	const reader = createInterface({ input: child.stdout });
	const firstLine = await new Promise<string>((done, fail) => {
		reader.once('line', done);
		void exit.then(({ code }) => fail(new Error(`the CLI exited (${code}) before its first line: ${stderr}`)));
	});
	reader.on('line', (line) => lines.push(line));
	return { child, first: JSON.parse(firstLine) as Started['first'], lines, exit };
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
	const end = Date.now() + ms;
	while (!check()) {
		if (Date.now() > end) throw new Error('timed out waiting');
		await new Promise((r) => setTimeout(r, 20));
	}
}

afterEach(() => {
	for (const child of running) child.kill('SIGKILL');
});

describe('npm run sandbox (sandbox/cli.ts)', () => {
	it('first line is one JSON object with url, sandboxToken, adminUrl; logs carry status and time, never the token; SIGTERM exits 0', async () => {
		const { child, first, lines, exit } = await startCli([]);
		expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(first.adminUrl).toBe(`${first.url}/_admin`);
		expect(typeof first.sandboxToken).toBe('string');
		expect(first.sandboxToken.length).toBeGreaterThanOrEqual(20);

		const auth = { authorization: `Token ${first.sandboxToken}` };
		expect((await fetch(`${first.url}/api/v1/data/devices/all/?limit=2`, { headers: auth })).status).toBe(200);
		expect((await fetch(`${first.url}/api/v1/data/devices/all/?limit=x`, { headers: auth })).status).toBe(400);
		// A download link is a credential too.
		const link = (await (await fetch(`${first.url}/api/v1/files/download_link/11/`, { method: 'PUT', headers: auth })).json()) as { url: string };
		expect((await fetch(link.url)).status).toBe(200);
		await until(() => lines.filter((l) => / (200|400) /.test(l)).length >= 4);

		const logs = lines.filter((l) => l.includes('/api/v1/'));
		expect(logs.some((l) => /GET \/api\/v1\/data\/devices\/all\/\S* 200 \d+(\.\d+)?ms/.test(l))).toBe(true);
		expect(logs.some((l) => / 400 \d+(\.\d+)?ms/.test(l))).toBe(true);
		const key = new URL(link.url).pathname.split('/').filter(Boolean).pop()!;
		for (const l of lines) {
			expect(l).not.toContain(first.sandboxToken);
			expect(l).not.toContain(key);
		}

		child.kill('SIGTERM');
		expect(await exit).toEqual({ code: 0, signal: null });
	});

	it('--devices 1000 --seed 7 is deterministic (same data twice), another seed differs', async () => {
		const snapshot = async (seed: string) => {
			const { child, first, exit } = await startCli(['--devices', '1000', '--seed', seed, '--quiet']);
			try {
				const res = await fetch(`${first.url}/api/v1/data/devices/all/?limit=1000`, { headers: { authorization: `Token ${first.sandboxToken}` } });
				const body = (await res.json()) as { count: number; results: Array<{ id: number; properties: Array<{ key_id: number; value: unknown }> }> };
				expect(body.count).toBe(1000);
				// Timestamps depend on the wall clock; the properties must not (except today-relative dates on a day change).
				return body.results.map((d) => [d.id, d.properties.filter((p) => ![3, 9].includes(p.key_id)).map((p) => p.value)]);
			} finally {
				child.kill('SIGTERM');
				expect((await exit).code).toBe(0);
			}
		};
		const [a, b, c] = await Promise.all([snapshot('7'), snapshot('7'), snapshot('8')]);
		expect(a).toHaveLength(1000);
		expect(b).toEqual(a);
		expect(c).not.toEqual(a);
	});

	it('--max-page-size 40 refuses larger pages with a 400 naming limit; GET /_admin/paging reports it', async () => {
		const { child, first, exit } = await startCli(['--max-page-size', '40', '--devices', '10', '--quiet']);
		const get = (limit: number) => fetch(`${first.url}/api/v1/data/devices/all/?limit=${limit}`, { headers: { authorization: `Token ${first.sandboxToken}` } });
		const refused = await get(41);
		expect(refused.status).toBe(400);
		expect(((await refused.json()) as { description: string }).description).toBe('limit: must be a whole number from 1 to 40, got 41.');
		expect((await get(40)).status).toBe(200);
		expect(await (await fetch(`${first.adminUrl}/paging`)).json()).toEqual({ max_page_size: 40 });
		child.kill('SIGTERM');
		await exit;
	});

	it('a bad argument exits with code 2 and a usage line on stderr', async () => {
		const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', '--port', 'abc'], { cwd: ROOT });
		let stderr = '';
		child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
		const code = await new Promise<number | null>((done) => child.once('exit', done));
		expect(code).toBe(2);
		expect(stderr).toMatch(/Usage:/);
	});
});
