import { createHash } from 'node:crypto';
import { MAX_ENTRY_BYTES, entrySize, makeEvent, type EventScope, type TecEvent } from '../events/event';
import { DETAIL_TYPES, type OverdueDevice } from '../events/schemas';
import { keyScope } from './context';

/**
 * The `Overdue Devices Digest`: newly overdue devices grouped by customer and department, for
 * one readable e-mail per run. The list is capped; an event still over the PutEvents entry
 * limit is cut further, and `truncated` says how many were left out: nothing is dropped silently.
 */
export function buildDigest(
	scope: EventScope & { partition?: string },
	entries: Array<{ device: OverdueDevice; episode: number }>,
	maxDevices: number,
	now: number,
): TecEvent {
	const sorted = [...entries].sort(
		(a, b) =>
			(a.device.customerName ?? '').localeCompare(b.device.customerName ?? '') ||
			(a.device.department ?? '').localeCompare(b.device.department ?? '') ||
			(b.device.daysOverdue ?? 0) - (a.device.daysOverdue ?? 0) ||
			a.device.id - b.device.id,
	);
	// The same set of announcements gives the same key, so a re-sent digest is recognisable.
	const dedupeKey = `overdue-digest:${keyScope(scope)}:${fingerprint(entries.map((e) => `${e.device.id}.${e.episode}`).sort().join(','))}`;
	let listed = Math.min(maxDevices, sorted.length);
	for (;;) {
		const event = makeEvent(DETAIL_TYPES.overdueDevicesDigest, scope, dedupeKey, digestData(sorted, listed), now);
		if (entrySize(event) <= MAX_ENTRY_BYTES || listed === 0) return event;
		listed = Math.floor(listed / 2);
	}
}

function digestData(sorted: Array<{ device: OverdueDevice }>, listed: number) {
	const groups: Array<{ customerName: string | null; department: string | null; count: number; devices: OverdueDevice[] }> = [];
	for (const { device } of sorted) {
		let group = groups[groups.length - 1];
		if (!group || group.customerName !== device.customerName || group.department !== device.department) {
			group = { customerName: device.customerName, department: device.department, count: 0, devices: [] };
			groups.push(group);
		}
		group.count++;
	}
	let left = listed;
	let i = 0;
	for (const group of groups) {
		for (let k = 0; k < group.count; k++, i++) {
			if (left > 0) {
				group.devices.push(sorted[i].device);
				left--;
			}
		}
	}
	return { count: sorted.length, listed, truncated: sorted.length - listed, groups };
}

function fingerprint(text: string): string {
	return createHash('sha256').update(text).digest('hex').slice(0, 20);
}
