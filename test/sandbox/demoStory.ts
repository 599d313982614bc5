import { addDays, addMonths, daysBetween } from '../../client/dates';

/**
 * What the demo's history must show, read from devices and results as a client sees them. The
 * HTTP suite feeds it from the service's list endpoints, the property test from the generator.
 */

export interface StoryDevice {
	id: number;
	created: string;
	designation: string;
	department: string;
	interval: number;
	lastTested: string | null;
	nextTest: string | null;
}

/** A device entry of the recycle bin: a scrapped device (its id, the day it was deleted). */
export interface StoryBinned {
	id: number;
	deletedOn: string;
}

export interface StoryResult {
	id: number;
	device_id: number;
	test_date: string;
	synced_time: string;
	status: string;
	tester: string;
	test_sequence: string;
	project_id: number | null;
}

/** Results per device, by test date. */
export function resultsByDevice(results: readonly StoryResult[]): Map<number, StoryResult[]> {
	const out = new Map<number, StoryResult[]>();
	for (const r of results) {
		const list = out.get(r.device_id) ?? [];
		list.push(r);
		out.set(r.device_id, list);
	}
	for (const list of out.values()) list.sort((a, b) => a.test_date.localeCompare(b.test_date));
	return out;
}

/**
 * The rules that hold for every seed, size and clock; answers the first one broken (or undefined).
 * `whole`: the account holds every result (no newest-N cut), so histories start at creation.
 */
export function brokenRule(devices: readonly StoryDevice[], results: readonly StoryResult[], now: number, whole: boolean, binned: readonly StoryBinned[] = []): string | undefined {
	const today = new Date(now).toISOString().slice(0, 10);
	const byDevice = resultsByDevice(results);
	const oldestKept = results.reduce((min, r) => (r.test_date < min ? r.test_date : min), '9999-12-31');
	for (const d of devices) {
		const own = byDevice.get(d.id) ?? [];
		const latest = own.at(-1);
		if (d.lastTested === null) {
			if (d.nextTest !== null) return `device ${d.id}: Next test ${d.nextTest} without a Last tested`;
			if (own.length > 0) return `device ${d.id}: never tested, yet ${own.length} results`;
			continue;
		}
		if (d.nextTest !== addMonths(d.lastTested, d.interval)) return `device ${d.id}: Next test ${d.nextTest} ≠ ${d.lastTested} + ${d.interval} months`;
		if (d.lastTested > today) return `device ${d.id}: Last tested ${d.lastTested} after today ${today}`;
		if (latest && latest.test_date !== d.lastTested) return `device ${d.id}: Last tested ${d.lastTested}, latest result ${latest.test_date} (result ${latest.id})`;
		if (!latest && whole) return `device ${d.id}: Last tested ${d.lastTested} with no result at all`;
		// Kept results are the newest: a device tested within them has its latest test among them.
		if (!latest && results.length > 0 && d.lastTested > oldestKept) return `device ${d.id}: Last tested ${d.lastTested} is within the kept results (from ${oldestKept}) but has none`;
		for (let i = 1; i < own.length; i++) if (own[i].test_date === own[i - 1].test_date) return `device ${d.id}: two results on ${own[i].test_date}`;
		const createdDay = d.created.slice(0, 10);
		if (own.length > 0 && own[0].test_date < createdDay) return `device ${d.id}: result ${own[0].id} on ${own[0].test_date}, before the device was created (${createdDay})`;
		if (whole && daysBetween(createdDay, own[0].test_date) > 7) return `device ${d.id}: created ${createdDay}, first test only ${own[0].test_date}`;
		for (const [i, r] of own.entries()) {
			if (r.status !== 'failed' || addDays(r.test_date, 7) > today) continue;
			const next = own[i + 1];
			if (!next || daysBetween(r.test_date, next.test_date) > 7) return `device ${d.id}: failed on ${r.test_date} without a re-test within 7 days`;
		}
	}
	// A scrapped device's results stay (of a device in the bin): its last one failed, the failure that took it out of service, before it was deleted.
	for (const b of binned) {
		if (devices.some((d) => d.id === b.id)) return `device ${b.id}: both in the list and in the recycle bin`;
		if (b.deletedOn > today) return `device ${b.id}: deleted ${b.deletedOn}, after today ${today}`;
		const latest = byDevice.get(b.id)?.at(-1);
		if (!latest) continue;
		if (latest.test_date > b.deletedOn) return `device ${b.id}: result ${latest.id} on ${latest.test_date}, after it was deleted (${b.deletedOn})`;
		if (whole && latest.status !== 'failed') return `device ${b.id}: scrapped after a ${latest.status} test (result ${latest.id})`;
	}
	const known = new Set([...devices.map((d) => d.id), ...binned.map((b) => b.id)]);
	const byId = [...results].sort((a, b) => a.id - b.id);
	for (const [i, r] of byId.entries()) {
		if (!known.has(r.device_id)) return `result ${r.id}: unknown device ${r.device_id}`;
		if (Date.parse(r.synced_time) < Date.parse(`${r.test_date}T00:00:00Z`)) return `result ${r.id}: synced ${r.synced_time} before its test date ${r.test_date}`;
		if (Date.parse(r.synced_time) > now) return `result ${r.id}: synced ${r.synced_time} after now`;
		if (!r.tester || !r.test_sequence || r.project_id === null) return `result ${r.id}: no tester, project or test sequence`;
		if (i > 0 && r.synced_time < byId[i - 1].synced_time) return `result ${r.id} synced ${r.synced_time}, before result ${byId[i - 1].id} (${byId[i - 1].synced_time})`;
		if (r.id !== i + 1) return `result ids are not 1…${byId.length}: ${r.id} at position ${i + 1}`;
	}
	return undefined;
}

/** Failed tests ÷ tests per group. */
export function failureRates(devices: readonly StoryDevice[], results: readonly StoryResult[], group: (d: StoryDevice) => string): Map<string, { tests: number; failed: number; rate: number }> {
	const byId = new Map(devices.map((d) => [d.id, d]));
	const out = new Map<string, { tests: number; failed: number; rate: number }>();
	for (const r of results) {
		const device = byId.get(r.device_id);
		// A scrapped device's results are not the list's: its group is the bin's to tell (the failure rates count it so).
		if (!device) continue;
		const key = group(device);
		const e = out.get(key) ?? { tests: 0, failed: 0, rate: 0 };
		e.tests++;
		if (r.status === 'failed') e.failed++;
		e.rate = e.failed / e.tests;
		out.set(key, e);
	}
	return out;
}

/** Regular tests (not re-tests after a failure): days after the due date the previous test set. */
export function daysLate(devices: readonly StoryDevice[], results: readonly StoryResult[]): number[] {
	const byDevice = resultsByDevice(results);
	const out: number[] = [];
	for (const d of devices) {
		const own = byDevice.get(d.id) ?? [];
		for (let i = 1; i < own.length; i++) {
			if (own[i - 1].status === 'failed') continue;
			out.push(daysBetween(addMonths(own[i - 1].test_date, d.interval), own[i].test_date));
		}
	}
	return out;
}
