import { expect } from 'vitest';
import type { RunReport } from '../../lambdas/pollers/context';
import type { Sandbox } from '../../sandbox/server';

/** Live mode through the sandbox's admin API (PUT /_admin/live). */
export async function putLive(sandbox: Sandbox, body: Record<string, unknown>): Promise<void> {
	const response = await fetch(`${sandbox.adminUrl}/live`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	if (!response.ok) throw new Error(`PUT /_admin/live answered ${response.status}: ${await response.text()}`);
}

interface LiveEvent {
	'detail-type': string;
	detail: { metadata: { dedupeKey: string }; data: Record<string, unknown> };
}

/**
 * Compares what a face announced with the sandbox's ground truth (sandbox/live.ts). A Resolved, or
 * a new episode, is false when the device has not left the overdue list since the start of the run
 * that announced its last episode. A device overdue without a break since the start of the
 * previous run must have an open announcement ("announced within two runs").
 */
export class LiveTally {
	readonly counts = {
		runs: 0,
		changes: 0,
		overdueAnnounced: 0,
		resolved: 0,
		falseResolved: 0,
		falseEpisodes: 0,
		late: 0,
		unresolvedAfterSettle: 0,
		results: 0,
		lostResults: 0,
		oldResultsAnnounced: 0,
		events: 0,
		duplicateKeys: 0,
		incompleteRuns: 0,
		candidatesStillOverdue: 0,
	};
	/** What each false count was about (printed when the guarantees fail). */
	readonly findings: string[] = [];
	private seen = 0;
	private depAtAnnounce = new Map<number, number>();
	private last = new Map<number, 'announced' | 'resolved'>();
	private startDep = new Map<number, number>();
	private startOverdue = new Set<number>();
	private prevDep = new Map<number, number>();
	private prevOverdue = new Set<number>();

	constructor(readonly name: string) {}

	/** Before a run: what was overdue, and how often each device had left the list. */
	runStart(sandbox: Sandbox): void {
		this.prevDep = this.startDep;
		this.prevOverdue = this.startOverdue;
		this.startDep = new Map(sandbox.live.departures);
		this.startOverdue = new Set(sandbox.live.truth().overdue);
	}

	/** After a run: checks what it announced (`announced`: device ids newly announced, `resolved`: ids resolved). */
	runDone(sandbox: Sandbox, announced: number[], resolved: number[], settled = false): void {
		this.counts.runs++;
		const dep = (id: number) => sandbox.live.departures.get(id) ?? 0;
		for (const id of announced) {
			this.counts.overdueAnnounced++;
			if (this.depAtAnnounce.has(id) && dep(id) === this.depAtAnnounce.get(id)) this.counts.falseEpisodes++;
			this.depAtAnnounce.set(id, this.startDep.get(id) ?? 0);
			this.last.set(id, 'announced');
		}
		for (const id of resolved) {
			this.counts.resolved++;
			if (dep(id) === (this.depAtAnnounce.get(id) ?? 0)) {
				this.counts.falseResolved++;
				const changes = sandbox.live.changes.filter((c) => c.deviceId === id).map((c) => `${c.seq}:${c.kind}`);
				this.findings.push(`false Resolved of device ${id} in run ${this.counts.runs}; overdue now: ${sandbox.live.truth().overdue.includes(id)}; changes: ${changes.join(' ')}`);
			}
			this.last.set(id, 'resolved');
		}
		const truth = sandbox.live.truth();
		const overdue = new Set(truth.overdue);
		for (const id of overdue) {
			const sincePrevious = this.prevOverdue.has(id) && dep(id) === (this.prevDep.get(id) ?? 0);
			if (sincePrevious && this.last.get(id) !== 'announced') this.counts.late++;
		}
		if (settled) {
			for (const [id, state] of this.last) if (state === 'announced' && !overdue.has(id)) this.counts.unresolvedAfterSettle++;
		}
	}

	/** The pollers' events since the last call: Device Overdue (first of an episode) and Resolved. */
	overdueEvents(events: LiveEvent[]): { announced: number[]; resolved: number[] } {
		const fresh = events.slice(this.seen);
		this.seen = events.length;
		const idOf = (e: LiveEvent) => (e.detail.data.device as { id: number }).id;
		return {
			announced: fresh.filter((e) => e['detail-type'] === 'Device Overdue' && e.detail.data.reminder === 0).map(idOf),
			resolved: fresh.filter((e) => e['detail-type'] === 'Device Overdue Resolved').map(idOf),
		};
	}

	report(report: RunReport): void {
		if (!report.complete) this.counts.incompleteRuns++;
		this.counts.candidatesStillOverdue += report.resolveChecks?.stillOverdue ?? 0;
	}

	/** Results: every one uploaded after `before` announced, none of `before`. */
	results(sandbox: Sandbox, announcedIds: number[], before: Set<number>): void {
		const announced = new Set(announcedIds);
		for (const id of sandbox.live.truth().results) {
			if (before.has(id)) continue;
			this.counts.results++;
			if (!announced.has(id)) this.counts.lostResults++;
		}
		for (const id of announced) if (before.has(id)) this.counts.oldResultsAnnounced++;
	}

	keys(keys: string[]): void {
		this.counts.events += keys.length;
		this.counts.duplicateKeys += keys.length - new Set(keys).size;
	}

	add(other: LiveTally): void {
		this.findings.push(...other.findings);
		for (const k of Object.keys(this.counts) as Array<keyof LiveTally['counts']>) this.counts[k] += other.counts[k];
	}

	/** The guarantees; and that the rounds really exercised them (changes, entries and exits happened). */
	expectExact(options: { checkLate?: boolean; resolved?: boolean } = {}): void {
		const c = this.counts;
		if (this.findings.length > 0) console.info(this.findings.join('\n'));
		expect(c.changes).toBeGreaterThan(0);
		expect(c.overdueAnnounced).toBeGreaterThan(0);
		if (options.resolved !== false) expect(c.resolved).toBeGreaterThan(0);
		expect({ falseResolved: c.falseResolved, falseEpisodes: c.falseEpisodes, lostResults: c.lostResults, oldResultsAnnounced: c.oldResultsAnnounced, duplicateKeys: c.duplicateKeys, unresolvedAfterSettle: c.unresolvedAfterSettle }).toEqual({
			falseResolved: 0,
			falseEpisodes: 0,
			lostResults: 0,
			oldResultsAnnounced: 0,
			duplicateKeys: 0,
			unresolvedAfterSettle: 0,
		});
		if (options.checkLate !== false) expect(c.late).toBe(0);
	}
}
