import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventRefused, readDigestInvocation, readEmailEvent } from '../../lambdas/email/events';
import type { TecEvent } from '../../lambdas/events/event';
import { delivery, device, dueSoon, failedTest, INSULATION_STEP, LEAKAGE_STEP, overdue, resolved } from '../support/emailEvents';

/** The reader of delivered events (Powertools Parser over the contract's schemas), as properties. */
const text = fc.option(fc.string({ maxLength: 20 }), { nil: null });
const someDevice = fc
	.record({ id: fc.nat(), designation: text, idBarcode: text, department: text, customerId: fc.option(fc.nat(), { nil: null }), customerName: text, daysOverdue: fc.option(fc.nat(), { nil: null }) })
	.map(({ id, ...over }) => device(id, over));
const someEvent: fc.Arbitrary<TecEvent> = fc.oneof(
	fc.tuple(someDevice, fc.integer({ min: 1, max: 9 }), fc.nat(5)).map(([d, episode, reminder]) => overdue(d, episode, reminder)),
	someDevice.map((d) => resolved(d)),
	fc.tuple(someDevice, fc.nat(60)).map(([d, days]) => dueSoon(d, '2026-12-01', days)),
	fc.tuple(someDevice, fc.nat(), fc.subarray([INSULATION_STEP, LEAKAGE_STEP])).map(([d, id, steps]) => failedTest(d, id, steps)),
);

/** Every leaf of a detail with its path, as the contract names fields. */
function leaves(value: unknown, path: string[] = []): string[][] {
	if (value === null || typeof value !== 'object') return [path];
	return Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
}
function replaced(detail: unknown, path: string[], value: unknown): unknown {
	if (path.length === 0) return value;
	const copy = (Array.isArray(detail) ? [...detail] : { ...(detail as object) }) as Record<string, unknown>;
	copy[path[0]] = replaced(copy[path[0]], path.slice(1), value);
	return copy;
}

describe('reading delivered events', () => {
	it('every event the pollers emit for the e-mails is read whole: type, source and detail as sent', () => {
		fc.assert(
			fc.property(someEvent, (e) => {
				const read = readEmailEvent(delivery(e));
				expect(read).toEqual({ source: e.source, 'detail-type': e['detail-type'], detail: e.detail });
			}),
		);
	});

	it('a detail with any one field of the wrong kind is refused, naming the detail type and that field', () => {
		const broken = someEvent.chain((e) => fc.constantFrom(...leaves(e.detail).filter((p) => p.length > 0)).map((path) => ({ e, path })));
		fc.assert(
			fc.property(broken, ({ e, path }) => {
				const bad = { ...delivery(e), detail: replaced(e.detail, path, { wrong: true }) };
				let refused: unknown;
				try {
					readEmailEvent(bad);
				} catch (error) {
					refused = error;
				}
				expect(refused).toBeInstanceOf(EventRefused);
				expect((refused as EventRefused).detailType).toBe(e['detail-type']);
				expect((refused as EventRefused).issues.map((i) => i.field)).toContain(path.join('.'));
				expect((refused as Error).message).toMatch(new RegExp(`^The "${e['detail-type']}" event does not match its schema: `));
			}),
		);
	});

	it('an event of another type or source is ignored, whatever its detail, and says why', () => {
		fc.assert(
			fc.property(someEvent, fc.constantFrom('Test Result Recorded', 'Overdue Devices Digest', 'Something New'), fc.anything(), (e, type, detail) => {
				expect(readEmailEvent({ ...delivery(e), 'detail-type': type, detail })).toEqual({ detailType: type, ignored: `detail-type "${type}" is not used by the e-mails` });
				expect(readEmailEvent({ ...delivery(e), source: 'elsewhere', detail })).toMatchObject({ ignored: 'source "elsewhere" is not test-equipment-cloud' });
			}),
		);
	});
});

describe("reading the digest's input", () => {
	it('the scheduled time as Scheduler sends it, or none; anything else is refused naming scheduledTime', () => {
		expect(readDigestInvocation({ scheduledTime: '2026-11-20T06:00:00Z' })).toEqual({ scheduledTime: '2026-11-20T06:00:00Z' });
		expect(readDigestInvocation({ scheduledTime: '2026-11-20T07:00:00+01:00' })).toEqual({ scheduledTime: '2026-11-20T07:00:00+01:00' });
		expect(readDigestInvocation(undefined)).toBeUndefined();
		expect(readDigestInvocation({})).toEqual({});
		for (const wrong of ['yesterday', '2026-11-20', 1_763_618_400_000]) {
			expect(() => readDigestInvocation({ scheduledTime: wrong })).toThrow(/^The "Digest Invocation" event does not match its schema: scheduledTime: /);
		}
	});
});
