import type { Check, DoctorResult } from './checks';

/** The doctor's table: assumption, holds / differs / unknown, the evidence, the profile key. */
export function table(result: DoctorResult, width = 110): string {
	const rows = [['Assumption', 'Status', 'Evidence', 'Profile key'], ...result.checks.map((c: Check) => [c.id, c.status, c.evidence, c.profileKey])];
	const idWidth = Math.max(...rows.map((r) => r[0].length));
	const keyWidth = Math.max(...rows.map((r) => r[3].length));
	const cut = (text: string, n: number) => (text.length > n ? `${text.slice(0, n - 1)}…` : text.padEnd(n));
	const lines = rows.map((r) => `${r[0].padEnd(idWidth)}  ${r[1].padEnd(7)}  ${cut(r[2], width)}  ${r[3].padEnd(keyWidth)}`.trimEnd());
	lines.splice(1, 0, '-'.repeat(Math.min(200, idWidth + keyWidth + width + 13)));
	const counts = (['holds', 'differs', 'unknown'] as const).map((s) => `${result.checks.filter((c) => c.status === s).length} ${s}`).join(', ');
	const differs = result.checks.some((c) => c.status === 'differs');
	lines.push('', counts);
	if (differs) lines.push('Suggested profile (what the answers showed; add the paths of the lists that answered 404):', JSON.stringify(result.suggestedProfile, null, 2));
	return `${lines.join('\n')}\n`;
}
