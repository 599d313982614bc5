/**
 * Benchmark: Device → Get Many with Return All through n8n's real engine (n8n-core
 * WorkflowExecute, the node loaded from dist/ by n8n's package loader) against the local sandbox,
 * next to two contenders reading the same list in the same run:
 *   - the client core at the largest page (the profile's `paging.maxPageSize`), paced, over fetch, without n8n;
 *   - what a user would build instead: a plain loop of fetch at the largest page, 200 ms
 *     between one answer and the next request (5 per second).
 * The node is measured as it is: its page size is whatever it asks for (counted at the sandbox).
 * Every contender is compared with the limit: ideal = ceil(N / largest page) / 5 s.
 *
 * Run: npx tsx bench/node-return-all.ts [--devices 10000]
 */
import { parseArgs } from 'node:util';
import setup from '../test/support/globalSetup';
import { FULL, LIMIT, idealSeconds, idealText, pagesAtLimit, pause, type BenchRow, type Scale } from './lib';

export interface Contender {
	name: string;
	items: number;
	requests: number;
	status429: number;
	seconds: number;
}

/** Runs the three contenders on one sandbox; each with its own token (own rate window). */
export async function returnAll(devices: number, settleMs = 1100): Promise<Contender[]> {
	setup(); // N8N_USER_FOLDER, N8N_LOG_LEVEL=silent, and `npm run build` when dist/ is stale
	// Loaded after setup(): n8n-core reads its environment when it is first loaded.
	/* eslint-disable @typescript-eslint/no-require-imports */
	const { runNode } = require('../test/support/n8n') as typeof import('../test/support/n8n');
	const { startSandbox } = require('../sandbox/server') as typeof import('../sandbox/server');
	const { ServiceClient, sharedPacers, pacingKey } = require('../client') as typeof import('../client');
	/* eslint-enable @typescript-eslint/no-require-imports */

	const sandbox = await startSandbox({ port: 0, size: { devices } });
	const rows: Contender[] = [];
	const measure = async (name: string, body: () => Promise<number>) => {
		await pause(settleMs);
		const before = { requests: sandbox.stats.requests, s429: sandbox.stats.byStatus['429'] ?? 0 };
		const started = performance.now();
		const items = await body();
		const seconds = (performance.now() - started) / 1000;
		await pause(50); // the sandbox counts a request once its answer is sent
		if (items !== devices) throw new Error(`${name}: read ${items} devices, expected ${devices}`);
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
		await measure('n8n node, Return All (n8n-core)', async () => {
			const { items, error } = await runNode({
				credentials: credentials(nodeToken),
				parameters: { resource: 'device', operation: 'getAll', returnAll: true },
			});
			if (error) throw new Error(`the node failed: ${error.message}`);
			if (new Set(items.map((i) => i.json.id)).size !== items.length) throw new Error('the node returned a device twice');
			return items.length;
		});

		// The same client core without n8n, at the largest page.
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
		await measure(`client at the largest page (${LIMIT.largestPage})`, async () => {
			let n = 0;
			for await (const page of client.pages('device.list', {}, { pageSize: LIMIT.largestPage })) n += page.length;
			return n;
		});

		// What a user would write: fetch, follow the offset, 200 ms after each answer.
		const userToken = sandbox.account.createToken({ label: 'bench user loop' }).token;
		await measure(`user's loop (fetch, limit=${LIMIT.largestPage}, 200 ms apart)`, async () => {
			let n = 0;
			for (let offset = 0; ; offset += LIMIT.largestPage) {
				const res = await fetch(`${sandbox.url}/api/v1/data/devices/all/?limit=${LIMIT.largestPage}&offset=${offset}`, {
					headers: { authorization: `Token ${userToken}` },
				});
				if (!res.ok) throw new Error(`user's loop: HTTP ${res.status}`);
				const page = (await res.json()) as { next: string | null; results: unknown[] };
				n += page.results.length;
				if (!page.next) return n;
				await pause(1000 / LIMIT.ratePerSecond);
			}
		});
	} finally {
		await sandbox.stop();
	}
	return rows;
}

/** For `npm run bench`: one row per contender against the limit, and the node against the client. */
export async function benchNode(scale: Scale = FULL): Promise<BenchRow[]> {
	const devices = scale.nodeDevices;
	const contenders = await returnAll(devices, scale.settleMs);
	const ideal = idealSeconds(pagesAtLimit(devices));
	const [node, client] = contenders;
	const read = `read ${devices.toLocaleString('en')} devices`;
	const rows: BenchRow[] = contenders.map((c) => ({
		bench: read,
		measure: `${c.name}: measured ÷ ideal`,
		value: `${c.seconds.toFixed(2)} s (${c.requests} requests, ${c.status429} × 429)`,
		ideal: idealText(devices),
		ratio: c.seconds / ideal,
		target: c === node ? '≤ 1.5 × client' : undefined,
	}));
	rows.push({
		bench: read,
		measure: 'n8n node ÷ client at the largest page',
		value: `${node.seconds.toFixed(2)} s vs ${client.seconds.toFixed(2)} s`,
		baseline: `client ${client.seconds.toFixed(2)} s`,
		ratio: node.seconds / client.seconds,
		target: '≤ 1.5',
		goal: 1.5,
	});
	return rows;
}

async function main(): Promise<void> {
	const { values } = parseArgs({ options: { devices: { type: 'string', default: String(FULL.nodeDevices) } } });
	const devices = Number(values.devices);
	if (!Number.isSafeInteger(devices) || devices < 1) throw new Error('--devices must be a positive whole number');
	const rows = await returnAll(devices);
	const ideal = idealSeconds(pagesAtLimit(devices));
	console.log(`Return All of ${devices} devices: ideal ${idealText(devices)} at ${LIMIT.ratePerSecond} requests/s (burst ${LIMIT.burst})`);
	console.table(
		rows.map((r) => ({
			contender: r.name,
			items: r.items,
			requests: r.requests,
			'429s': r.status429,
			'measured s': r.seconds.toFixed(2),
			'measured ÷ ideal': (r.seconds / ideal).toFixed(2),
		})),
	);
	const ratio = rows[0].seconds / rows[1].seconds;
	console.log(`n8n node ÷ client at the largest page = ${ratio.toFixed(2)} (target ≤ 1.5): ${ratio <= 1.5 ? 'met' : 'NOT met'}`);
}

if (require.main === module) {
	main().catch((error) => {
		console.error(error instanceof Error ? error.message : error);
		process.exit(1);
	});
}
