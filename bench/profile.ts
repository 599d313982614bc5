import { resolveProfile } from '../client';
import { startSandbox } from '../sandbox/server';
import { FULL, median, type BenchRow, type Scale } from './lib';
import { pollerRun } from './pollers';

/**
 * The overdue poller's CPU per item with a service profile loaded, against the default layout in
 * the same run: a sandbox serving the profile's layout (page numbers, another path, the overdue
 * records' days renamed, so every record is translated) and one serving the default, the same
 * account; child processes alternate between them.
 */
const PROFILE = resolveProfile({
	operations: { 'overdueDevice.list': { path: '/devices/overdue/' } },
	paging: { style: 'pageNumber', pageParam: 'page', pageSizeParam: 'page_size' },
	overdue: { daysOverdue: 'overdue_days' },
	properties: { nextTestDate: { names: ['Calibration due'] } },
});

export async function benchProfile(scale: Scale = FULL): Promise<BenchRow[]> {
	const size = { devices: scale.overdueDevices.large, customers: 200, testResults: 0 };
	const plain = await startSandbox({ port: 0, size });
	const laid = await startSandbox({ port: 0, size, profile: PROFILE });
	try {
		const without: number[] = [];
		const withProfile: number[] = [];
		for (let i = 0; i < Math.max(3, scale.cpuRuns); i++) {
			without.push((await pollerRun(plain, scale.settleMs)).cpuUsPerItem);
			withProfile.push((await pollerRun(laid, scale.settleMs, false, JSON.stringify(PROFILE))).cpuUsPerItem);
		}
		const a = median(withProfile);
		const b = median(without);
		const range = (v: number[]) => `${Math.min(...v).toFixed(1)}–${Math.max(...v).toFixed(1)}`;
		return [
			{
				bench: 'overdue poller, service profile',
				measure: `CPU per item with a service profile loaded (page numbers, renamed keys; median of ${withProfile.length} processes) ÷ the default layout, same run`,
				value: `${a.toFixed(1)} µs (${range(withProfile)})`,
				baseline: `default layout: ${b.toFixed(1)} µs (${range(without)})`,
				ratio: a / b,
				target: '≤ 1.05, and ≤ 20 µs',
				goal: 1.05,
			},
		];
	} finally {
		await plain.stop();
		await laid.stop();
	}
}
