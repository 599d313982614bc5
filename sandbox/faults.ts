import { Random } from './random';

/** Fault injection for reliability tests; each fault may be limited to a path prefix and a count. */
export type FaultKind = 'status' | 'latency' | 'truncate' | 'nonJson' | 'drop';

export interface FaultInput {
	kind: FaultKind;
	/** For `status`: the status to answer (e.g. 429, 500, 503, 451). */
	status?: number;
	/** Share of matching requests affected, 0..1 (default 1). */
	share?: number;
	/** For `latency`: added delay. */
	latencyMs?: number;
	/** Only requests whose path under /api/v1 starts with this. */
	path?: string;
	/** Stop after this many hits. */
	count?: number;
}

export interface Fault extends Required<Pick<FaultInput, 'kind' | 'share'>> {
	id: number;
	status?: number;
	latencyMs?: number;
	path?: string;
	remaining?: number;
	hits: number;
}

const KINDS: readonly FaultKind[] = ['status', 'latency', 'truncate', 'nonJson', 'drop'];

export class Faults {
	private list: Fault[] = [];
	private nextId = 1;
	private rnd: Random;

	constructor(seed = 1) {
		this.rnd = new Random(seed);
	}

	add(input: FaultInput): Fault {
		if (!KINDS.includes(input.kind)) throw new Error(`kind: expected one of ${KINDS.join(', ')}`);
		if (input.kind === 'status' && !(Number.isInteger(input.status) && input.status! >= 400 && input.status! <= 599)) {
			throw new Error('status: a fault of kind "status" needs an HTTP status from 400 to 599');
		}
		const share = input.share ?? 1;
		if (!(share >= 0 && share <= 1)) throw new Error('share: must be from 0 to 1');
		const fault: Fault = {
			id: this.nextId++,
			kind: input.kind,
			share,
			status: input.status,
			latencyMs: input.latencyMs ?? (input.kind === 'latency' ? 100 : undefined),
			path: input.path,
			remaining: input.count,
			hits: 0,
		};
		this.list.push(fault);
		return fault;
	}

	clear(): void {
		this.list = [];
	}

	all(): Fault[] {
		return [...this.list];
	}

	/** The faults that strike this request (each drawn independently). */
	draw(path: string): Fault[] {
		const hit: Fault[] = [];
		for (const f of this.list) {
			if (f.path && !path.startsWith(f.path)) continue;
			if (f.remaining !== undefined && f.remaining <= 0) continue;
			if (f.share < 1 && this.rnd.next() >= f.share) continue;
			f.hits++;
			if (f.remaining !== undefined) f.remaining--;
			hit.push(f);
		}
		return hit;
	}
}
