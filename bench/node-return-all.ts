/**
 * Benchmark: Return All of 10,000 devices through n8n's real engine (n8n-core WorkflowExecute,
 * the node loaded from dist/ by n8n's package loader) against the local sandbox, next to two
 * baselines in the same run on the same pages:
 *   - client only: the same ServiceClient (pacing, retries) over fetch, without n8n;
 *   - naive loop: sequential fetch of each page with a fixed 200 ms pause (5 per second).
 * Reports ideal time (pages ÷ 5 per second) ÷ measured time; the target for the node is ≥ 0.9.
 *
 * Run: npx tsx bench/node-return-all.ts [--devices 10000]
 */
import { parseArgs } from 'node:util';
import setup from '../test/support/globalSetup';
import type { BenchRow } from './lib';

const PAGE_SIZE = 100;
const RATE_PER_SECOND = 5;

interface Row {
	name: string;
	items: number;
	requests: number;
	status429: number;
	seconds: number;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs the three contenders; returns the rows and the ideal time in seconds. */
export async function returnAll(devices: number): Promise<{ rows: Row[]; ideal: number; pages: number }> {
	setup(); // N8N_USER_FOLDER, N8N_LOG_LEVEL=silent, and `npm run build` when dist/ is stale
	// Loaded after setup(): n8n-core reads its environment when it is first loaded.
	/* eslint-disable @typescript-eslint/no-require-imports */
	const { runNode } = require('../test/support/n8n') as typeof import('../test/support/n8n');
	const { startSandbox } = require('../sandbox/server') as typeof import('../sandbox/server');
	const { ServiceClient, sharedPacers, pacingKey } = require('../client') as typeof import('../client');
	/* eslint-enable @typescript-eslint/no-require-imports */

	const sandbox = await startSandbox({ port: 0, size: { devices } });
	const pages = Math.ceil(devices / PAGE_SIZE);
	const ideal = pages / RATE_PER_SECOND;
	const rows: Row[] = [];
	const measure = async (name: string, body: () => Promise<number>) => {
		await pause(1100); // an empty rate-limit window for each contender
		const before = { requests: sandbox.stats.requests, s429: sandbox.stats.byStatus['429'] ?? 0 };
		const started = performance.now();
		const items = await body();
		const seconds = (performance.now() - started) / 1000;
		await pause(50);
		rows.push({
			name,
			items,
			requests: sandbox.stats.requests - before.requests,
			status429: (sandbox.stats.byStatus['429'] ?? 0) - before.s429,
			seconds,
		});
	};
	const credentials = (token: string) => ({
		testEquipmentCloudApi: { accessToken: token, environment: 'sandbox', sandboxBaseUrl: sandbox.url },
	});

	try {
		// Node through n8n-core (warmed up first: n8n initialises its HTTP stack lazily).
		const nodeToken = sandbox.account.createToken({ label: 'bench node' }).token;
		await runNode({ credentials: credentials(nodeToken), parameters: { resource: 'subUser', operation: 'getAll', limit: 1 } });
		await measure('n8n node (WorkflowExecute)', async () => {
			const { items, error } = await runNode({
				credentials: credentials(nodeToken),
				parameters: { resource: 'device', operation: 'getAll', returnAll: true },
			});
			if (error) throw new Error(`the node failed: ${error.message}`);
			if (new Set(items.map((i) => i.json.id)).size !== devices) throw new Error(`expected ${devices} distinct devices, got ${items.length}`);
			return items.length;
		});

		// The same client core without n8n.
		const clientToken = sandbox.account.createToken({ label: 'bench client' }).token;
		const clock = { now: () => Date.now(), sleep: pause };
		const client = new ServiceClient({
			baseUrl: sandbox.url,
			clock,
			pacer: sharedPacers.forKey(pacingKey(clientToken, 'bench'), clock),
			request: async (r) => {
				const res = await fetch(r.url, {
					method: r.method,
					headers: { ...r.headers, authorization: `Token ${clientToken}` },
					body: r.body,
				});
				const headers: Record<string, string> = {};
				res.headers.forEach((v, k) => (headers[k] = v));
				return { status: res.status, headers, body: await res.text() };
			},
		});
		await measure('client only (fetch, no n8n)', async () => {
			let n = 0;
			for await (const page of client.pages('device.list')) n += page.length;
			return n;
		});

		// Naive: one page after the other, 200 ms apart.
		const naiveToken = sandbox.account.createToken({ label: 'bench naive' }).token;
		await measure('naive loop (fetch + 200 ms pause)', async () => {
			let n = 0;
			for (let offset = 0; offset < devices; offset += PAGE_SIZE) {
				const res = await fetch(`${sandbox.url}/api/v1/data/devices/all/?limit=${PAGE_SIZE}&offset=${offset}`, {
					headers: { authorization: `Token ${naiveToken}` },
				});
				if (!res.ok) throw new Error(`naive loop: HTTP ${res.status}`);
				n += ((await res.json()) as { results: unknown[] }).results.length;
				await pause(1000 / RATE_PER_SECOND);
			}
			return n;
		});
	} finally {
		await sandbox.stop();
	}

	return { rows, ideal, pages };
}

/** For `npm run bench`: the node's row, with the client-only and naive loops as baselines. */
export async function benchNode(devices = 10_000): Promise<BenchRow[]> {
	const { rows, ideal, pages } = await returnAll(devices);
	const [node, client, naive] = rows;
	return [
		{
			bench: 'n8n node',
			measure: `Return All of ${devices.toLocaleString('en')} devices (${pages} pages) through n8n-core: ideal ÷ measured (429s)`,
			value: `${(ideal / node.seconds).toFixed(3)} (${node.seconds.toFixed(1)} s, ${node.status429} × 429)`,
			baseline: `client only ${(ideal / client.seconds).toFixed(3)}; naive ${(ideal / naive.seconds).toFixed(3)}`,
			ratio: `${(client.seconds / node.seconds).toFixed(2)}`,
			target: '≥ 0.9',
		},
	];
}

async function main(): Promise<void> {
	const { values } = parseArgs({ options: { devices: { type: 'string', default: '10000' } } });
	const devices = Number(values.devices);
	if (!Number.isSafeInteger(devices) || devices < 1) throw new Error('--devices must be a positive whole number');
	const { rows, ideal, pages } = await returnAll(devices);
	const table = rows.map((r) => ({
		contender: r.name,
		items: r.items,
		requests: r.requests,
		'429s': r.status429,
		'measured s': r.seconds.toFixed(2),
		'ideal s': ideal.toFixed(2),
		'ideal ÷ measured': (ideal / r.seconds).toFixed(3),
	}));
	console.log(`Return All of ${devices} devices: ${pages} pages of ${PAGE_SIZE}, ideal ${ideal.toFixed(1)} s at ${RATE_PER_SECOND} requests/s`);
	console.table(table);
	const node = rows[0];
	const ratio = ideal / node.seconds;
	console.log(`n8n node: ideal ÷ measured = ${ratio.toFixed(3)} (target ≥ 0.9): ${ratio >= 0.9 ? 'met' : 'NOT met'}`);
	process.exitCode = ratio >= 0.9 ? 0 : 1;
}

if (require.main === module) {
	main().catch((error) => {
		console.error(error instanceof Error ? error.message : error);
		process.exit(1);
	});
}
