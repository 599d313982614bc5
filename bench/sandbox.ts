import { listParams, validateListQuery } from '../client';
import { generateDemo } from '../sandbox/demo';
import { startSandbox } from '../sandbox/server';
import { Account } from '../sandbox/account';
import { renderTestResultDetail } from '../sandbox/render';
import { FULL, median, percentile, timed, type BenchRow, type Scale } from './lib';

/**
 * Sandbox scale: 100k devices generated, against JSON.parse building the same devices from their
 * JSON (the floor, measured in the same run), and a list request with two filters and ordering
 * over them, side by side with the plain first page of the same list (the baseline) in the same run.
 */
export async function benchSandbox(scale: Scale = FULL): Promise<BenchRow[]> {
	const { sandboxDevices: devices, sandboxRounds: rounds } = scale;
	const generation = await timed(() => generateDemo(1, { customers: 200, devices, testResults: 0 }, Date.now()));
	const json = JSON.stringify([...generation.value.devices.values()]);
	const parses: number[] = [];
	for (let i = 0; i < 3; i++) parses.push((await timed(() => JSON.parse(json) as unknown)).ms);
	const parseMs = median(parses);
	const withSeries = benchGenerationWithSeries(devices);
	const details = benchDetails(devices);
	const sandbox = await startSandbox({ port: 0, size: { customers: 200, devices, testResults: 1000 } });
	try {
		const query = validateListQuery('device.list', {
			filters: [
				{ key: 4, conditions: [{ keyword: 'equals', value: 'Workshop' }, { keyword: 'equals', value: 'Laboratory' }], join: 'OR' },
				{ key: 3, conditions: [{ keyword: 'olderThan', value: sandbox.account.today() }] },
			],
			ordering: { key: 3, direction: 'desc' },
		});
		const filtered = `/data/devices/all/?${new URLSearchParams(listParams(query, { limit: 100 }))}`;
		const plain = '/data/devices/all/?limit=100';
		const measure = async (path: string) => {
			const samples: number[] = [];
			for (let i = 0; i < rounds; i++) {
				const token = sandbox.account.createToken().token; // separate tokens: no rate limit in the way
				const { ms, value } = await timed(async () => {
					const res = await fetch(`${sandbox.url}/api/v1${path}`, { headers: { authorization: `Token ${token}` } });
					return { status: res.status, body: (await res.json()) as { count: number } };
				});
				if (value.status !== 200) throw new Error(`${path}: HTTP ${value.status}`);
				if (i > 2) samples.push(ms); // the first rounds warm the JIT
			}
			return samples;
		};
		const base = await measure(plain);
		const heavy = await measure(filtered);
		const p50 = percentile(heavy, 50);
		const b50 = percentile(base, 50);
		return [
			{
				bench: 'sandbox',
				measure: `generate ${devices.toLocaleString('en')} devices ÷ JSON.parse of the same devices (median of 3)`,
				value: `${generation.ms.toFixed(0)} ms`,
				baseline: `JSON.parse: ${parseMs.toFixed(0)} ms (${(json.length / 1024 / 1024).toFixed(0)} MB)`,
				ratio: generation.ms / parseMs,
				target: '≤ 5',
				goal: 5,
			},
			{
				bench: 'sandbox',
				measure: `list, 2 filters + ordering over ${devices.toLocaleString('en')} devices, p50 (p95); ratio ÷ plain first page`,
				value: `${p50.toFixed(1)} ms (${percentile(heavy, 95).toFixed(1)} ms)`,
				baseline: `${b50.toFixed(1)} ms plain first page`,
				ratio: p50 / b50,
				target: '≤ 8',
				goal: 8,
			},
			withSeries,
			details,
		];
	} finally {
		await sandbox.stop();
	}
}

/**
 * Generation speed kept with the measured values' past: the demo with whole histories (and its
 * scrapped devices) generated with its series planned (the drifting devices chosen, each device's
 * drift planned from its results), against the same generation with the series left out
 * (`series: false`, the baseline, same run; rounds alternate so both see the same machine; CPU
 * time, not the wall clock, which on a shared machine mostly measures the other processes).
 * Kept when the series add at most half.
 */
function benchGenerationWithSeries(devices: number): BenchRow {
	const ROUNDS = 9;
	const size = { customers: 200, devices: Math.min(devices, 20_000) };
	const now = Date.now();
	// CPU time of this process: on a shared machine the wall clock mostly measures the others.
	const once = (series: boolean) => {
		const start = process.cpuUsage();
		const data = generateDemo(1, size, now, { series });
		const used = process.cpuUsage(start);
		return { ms: (used.user + used.system) / 1000, data };
	};
	once(true); // warm the JIT
	once(false);
	const withSeries: number[] = [];
	const without: number[] = [];
	let data = once(true).data;
	for (let i = 0; i < ROUNDS; i++) {
		const a = once(true);
		withSeries.push(a.ms);
		data = a.data;
		without.push(once(false).ms);
	}
	const ms = median(withSeries);
	const base = median(without);
	const ratio = ms / base;
	return {
		bench: 'sandbox',
		measure: `generate the demo with whole histories, ${size.devices.toLocaleString('en')} devices (${data.testResults.size.toLocaleString('en')} results, ${data.recycleBin.length} scrapped), its measured series planned, CPU time (median of ${ROUNDS}) ÷ the same without the series`,
		value: `${ms.toFixed(0)} ms (${data.series.drifts.size.toLocaleString('en')} drifts planned)`,
		baseline: `${base.toFixed(0)} ms without the series`,
		ratio,
		target: `≤ 1.5: ${ratio <= 1.5 ? 'kept' : 'not kept'}`,
		goal: 1.5,
	};
}

/**
 * The performed steps of a result are computed when its detail is served, from the device's series
 * (sandbox/series.ts), nothing stored per result: the whole demo's details rendered, against
 * writing the same details as JSON, which serving each of them costs anyway (the baseline, same
 * run). Kept when computing the steps costs at most twice writing them.
 */
function benchDetails(devices: number): BenchRow {
	const account = new Account({ size: { customers: 200, devices: Math.min(devices, 20_000) } });
	const results = [...account.data.testResults.values()];
	const pass = (f: (r: (typeof results)[number]) => unknown) => {
		const start = performance.now();
		for (const r of results) f(r);
		return performance.now() - start;
	};
	pass((r) => renderTestResultDetail(account, r)); // warm the JIT
	const rendered = results.map((r) => renderTestResultDetail(account, r));
	let i = 0;
	const bare = median([0, 1, 2].map(() => ((i = 0), pass(() => JSON.stringify(rendered[i++])))));
	const detail = median([0, 1, 2].map(() => pass((r) => renderTestResultDetail(account, r))));
	const ratio = detail / bare;
	return {
		bench: 'sandbox',
		measure: `render the performed steps of ${results.length.toLocaleString('en')} results from their devices' series (median of 3) ÷ JSON.stringify of the same details`,
		value: `${detail.toFixed(0)} ms (${((detail / results.length) * 1000).toFixed(1)} µs a result; ${account.data.series.drifts.size.toLocaleString('en')} drifts stored)`,
		baseline: `${bare.toFixed(0)} ms JSON.stringify`,
		ratio,
		target: `≤ 2: ${ratio <= 2 ? 'kept' : 'not kept'}`,
		goal: 2,
	};
}
