import { composeDigest } from '../../lambdas/email/digest';
import type { Fact } from '../../lambdas/email/facts';
import { renderDigest, type DigestContent } from '../../email/render';
import { parseEmailSettings } from '../../lambdas/email/settings';
import type { TodaysTruth } from '../../lambdas/email/view';
import type { OverdueDevice } from '../../lambdas/events/schemas';
import { device, INSULATION_STEP, LEAKAGE_STEP } from './emailEvents';

/**
 * A realistic digest with every section, for the rendering snapshots and the README screenshot:
 * the facts as the collector files them, composed and rendered by the real code.
 */
export const PREVIEW_SETTINGS = parseEmailSettings(
	{ mailFrom: 'Calibration alerts <alerts@lab.example.com>', recipients: { customers: { 'Acme Instruments': ['custodian@acme.example'] }, escalation: { afterDays: 60, to: ['manager@example.com'] } } },
	'preview',
);

const acme = (id: number, designation: string, department: string, nextTestDate: string, lastTestedDate: string | null = '2025-10-02') =>
	device(id, { designation, department, nextTestDate, lastTestedDate, customerName: 'Acme Instruments' });

export function previewContent(): DigestContent {
	const newly = [acme(1042, 'Fluke 5522A Multi-Product Calibrator', 'Calibration Lab', '2026-11-17'), acme(1107, 'Keysight 34465A Digital Multimeter', 'Electronics Workshop', '2026-11-19')];
	const still = [
		acme(877, 'Rohde & Schwarz NRP18S Power Sensor', 'RF Lab', '2026-08-30', '2025-08-30'),
		acme(915, 'Metrel MI 3360 Safety Tester', 'Biomedical Engineering', '2026-10-28'),
		acme(990, 'Tektronix MDO34 Oscilloscope', 'Electronics Workshop', '2026-11-09'),
	];
	const due = [acme(1201, 'Fluke 1664 FC Installation Tester', 'Facilities', '2026-11-27'), acme(1230, 'Mettler Toledo XPR205 Balance', 'QA Laboratory', '2026-12-18')];
	const failedDevice = acme(1311, 'GE Dash 4000 Patient Monitor', 'Biomedical Engineering', '2027-05-01');
	const at = '2026-11-19T10:00:00.000Z';
	const facts: Fact[] = [
		...newly.map((d) => ({ kind: 'overdue' as const, key: `device-overdue:${d.id}:1`, at, device: d, episode: 1 })),
		...due.map(({ daysOverdue: _none, ...d }) => ({ kind: 'dueSoon' as const, key: `device-due-soon:${d.id}`, at, device: { ...d, nextTestDate: d.nextTestDate ?? '', daysLeft: 0 }, stage: 30 })),
		{
			kind: 'failed',
			key: 'test-result-failed:88231',
			at,
			device: { id: failedDevice.id, customerId: 10, designation: failedDevice.designation, idBarcode: failedDevice.idBarcode, customerName: 'Acme Instruments', department: 'Biomedical Engineering' },
			testResult: { id: 88231, status: 'failed', passed: false, testDate: '2026-11-19T09:12:00Z', syncedTime: '2026-11-19T09:20:00Z', projectId: null, testSequence: 'IEC 62353', tester: 'J. Keller' },
			failedSteps: [INSULATION_STEP, LEAKAGE_STEP],
			failedStepCount: 2,
			truncatedSteps: 0,
		},
	];
	const overdue: OverdueDevice[] = [...newly, ...still];
	const content = composeDigest({ settings: PREVIEW_SETTINGS, timeZone: 'Europe/Berlin', environment: 'production' }, 'custodian@acme.example', '2026-11-20', facts, truthOf(overdue, facts));
	if (!content) throw new Error('the preview has something to say');
	return content;
}

export const previewEmail = () => renderDigest(previewContent());

/** The pollers' view in which these devices are overdue (episode 1) and these coming-due facts still hold. */
export function truthOf(overdue: OverdueDevice[], facts: Fact[] = []): TodaysTruth {
	const dueSoon: TodaysTruth['dueSoon'] = new Map();
	for (const f of facts) if (f.kind === 'dueSoon') dueSoon.set(f.device.id, { due: f.device.nextTestDate, dropped: false });
	return { overdue: new Map(overdue.map((d) => [d.id, { episode: 1, device: d }])), ended: new Map(), dueSoon };
}
