import { addDays, monthBefore, type RateTestResult } from '../../client';
import { composeComplianceReport, type ComplianceReportContent } from '../../email/compliance';
import { reportHistory } from '../../lambdas/email/complianceRun';
import { parseEmailSettings } from '../../lambdas/email/settings';
import type { DueHistory, StoredDueEntry } from '../../lambdas/pollers/state';

/**
 * A realistic history of due dates (13 months, two customers, four departments), for the
 * compliance report's snapshots and its screenshots: composed and rendered by the real code.
 * Deterministic: each device's outcome per month follows from its id and the month.
 */
export const COMPLIANCE_SETTINGS = parseEmailSettings(
	{
		mailFrom: 'Calibration alerts <alerts@lab.example.com>',
		recipients: { default: ['quality@example.com'], customers: { 'Acme Instruments': ['custodian@acme.example'] }, escalation: { afterDays: 60, to: ['manager@example.com'] } },
	},
	'preview',
);

const DEVICES: Array<[designation: string, customer: [number, string] | null, department: string | null]> = [
	['Fluke 5522A Multi-Product Calibrator', [1, 'Acme Instruments'], 'Calibration Lab'],
	['Keysight 34465A Digital Multimeter', [1, 'Acme Instruments'], 'Electronics Workshop'],
	['Rohde & Schwarz NRP18S Power Sensor', [1, 'Acme Instruments'], 'RF Lab'],
	['Metrel MI 3360 Safety Tester', [2, 'Brightwater Clinic'], 'Biomedical Engineering'],
	['Tektronix MDO34 Oscilloscope', [1, 'Acme Instruments'], 'Electronics Workshop'],
	['Fluke 1664 FC Installation Tester', [2, 'Brightwater Clinic'], 'Biomedical Engineering'],
	['Mettler Toledo XPR205 Balance', [1, 'Acme Instruments'], 'Calibration Lab'],
	['GE Dash 4000 Patient Monitor', [2, 'Brightwater Clinic'], 'Biomedical Engineering'],
	['Beha-Amprobe PAT Tester', null, 'Facilities'],
	['Testo 175 T1 Data Logger', [2, 'Brightwater Clinic'], null],
];

/** The report month of the preview (sent on 2026-11-01). */
export const PREVIEW_MONTH = '2026-10';

export function previewHistories(): Array<{ key: string; value: DueHistory }> {
	const out: Array<{ key: string; value: DueHistory }> = [];
	for (let k = 0; k < 30; k++) {
		const id = 1000 + k;
		const [designation, customer, department] = DEVICES[k % DEVICES.length];
		const group = { customerId: customer?.[0] ?? null, customerName: customer?.[1] ?? null, department };
		const entries: StoredDueEntry[] = [];
		for (let m = 12; m >= 0; m--) {
			const month = monthBefore(PREVIEW_MONTH, m);
			const h = (k * 2_654_435_761 + m * 40_503 + 17) % 1009;
			if (h % 3 === 0) continue;
			const due = `${month}-${String(1 + (h % 28)).padStart(2, '0')}`;
			// Better with time: the share on time grows from about 60% to about 85%.
			const onTime = 60 + (12 - m) * 2;
			const roll = h % 100;
			const firstSeen = k === 7 && m === 12;
			const base = { due, openedOn: firstSeen ? addDays(due, 9) : addDays(due, -365), firstSeenOverdue: firstSeen, ...group };
			if (roll >= 96 && m > 0) entries.push({ ...base, outcome: 'moved', closedOn: addDays(due, -20) });
			else if (roll >= onTime && m === 0 && h % 2 === 0) entries.push({ ...base, outcome: 'open' });
			else {
				// Late ones a few days to about two months late (the oldest still overdue at their month's end).
				const late = roll >= onTime ? 2 + (h % 61) : 0;
				const testedOn = addDays(due, late > 0 ? late : -(h % 15));
				entries.push({ ...base, outcome: 'tested', testedOn, closedOn: addDays(testedOn, 1) });
			}
		}
		const last = entries.at(-1);
		out.push({
			key: String(id),
			value: {
				device: { ...group, designation, testIntervalMonths: 12, nextTestDate: k === 29 ? null : (last?.outcome === 'open' ? last.due : '2027-06-01'), lastTestedDate: '2026-09-01', lastResultDate: null, seenOn: '2026-11-01', ...(k === 28 ? { deletedOn: '2026-10-20' } : {}) },
				entries: k === 28 ? entries.map((e) => (e.outcome === 'open' ? { ...e, outcome: 'deleted' as const, closedOn: '2026-10-20' } : e)) : entries,
			},
		});
	}
	return out;
}

/**
 * The tests behind the preview's history, for its failure rates: each test that met a due date,
 * failed now and then (more often for some device types), a failed one re-tested two days later.
 */
export function previewTests(histories = previewHistories()): RateTestResult[] {
	const out: RateTestResult[] = [];
	for (const { key, value } of histories) {
		const deviceId = Number(key);
		const risky = /Safety Tester|Installation Tester|PAT Tester/.test(value.device.designation ?? '');
		for (const e of value.entries) {
			if (e.outcome !== 'tested' || !e.testedOn) continue;
			const failed = (deviceId * 7 + Number(e.due.slice(5, 7)) * 13) % (risky ? 6 : 97) === 0;
			out.push({ id: out.length + 1, deviceId, testDate: e.testedOn, failed });
			if (failed) out.push({ id: out.length + 1, deviceId, testDate: addDays(e.testedOn, 2), failed: false });
		}
	}
	return out;
}

export function previewReport(recipient = 'manager@example.com'): ComplianceReportContent {
	return composeComplianceReport({ settings: COMPLIANCE_SETTINGS, timeZone: 'Europe/Berlin', environment: 'production' }, recipient, PREVIEW_MONTH, reportHistory(previewHistories()), undefined, previewTests())!;
}
