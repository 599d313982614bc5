import { Random } from './random';

/** Fault injection for reliability tests; each fault may be limited to a path prefix and a count. */
export type FaultKind = 'status' | 'latency' | 'truncate' | 'nonJson' | 'drop' | OddAnswer;

/**
 * Odd but well-formed answers to list requests (a buggy service or a proxy in front of it):
 * - `countLow` / `countHigh`: `count` half / twice the truth (+10); `next` follows the lie or the truth;
 * - `nextLoop`: `next` points to the page just served; `nextBack`: to the page before it;
 * - `endlessNext`: `next` never ends and the pages alternate between the first two;
 * - `emptyPage`: a 200 page without results, `count` and `next` unchanged;
 * - `pageTooLarge`: `size` items (default 1,000,000 small ones) whatever `limit` asked;
 * - `wrongShape`: unreadable records (bad ids, dates, types) at the head of the list;
 * - `deepRecord`: a record nested 100,000 levels deep at the head of the page;
 * - `emptyList`: one consistent empty list (`count` 0, no `next`), as a glitching service answers.
 */
export type OddAnswer = 'countLow' | 'countHigh' | 'nextLoop' | 'nextBack' | 'endlessNext' | 'emptyPage' | 'pageTooLarge' | 'wrongShape' | 'deepRecord' | 'emptyList';
export const ODD_ANSWERS: readonly OddAnswer[] = ['countLow', 'countHigh', 'nextLoop', 'nextBack', 'endlessNext', 'emptyPage', 'pageTooLarge', 'wrongShape', 'deepRecord', 'emptyList'];

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
	/** Let this many matching requests pass untouched first (e.g. to strike the second page). */
	skip?: number;
	/** For `pageTooLarge`: items in the page. */
	size?: number;
	/** An outage: the fault strikes for this long (on the account's clock) from when it is added. */
	forMs?: number;
}

export interface Fault extends Required<Pick<FaultInput, 'kind' | 'share'>> {
	id: number;
	status?: number;
	latencyMs?: number;
	path?: string;
	remaining?: number;
	skip: number;
	size?: number;
	/** When an outage (`forMs`) ends, on the account's clock. */
	until?: number;
	hits: number;
}

const KINDS: readonly FaultKind[] = ['status', 'latency', 'truncate', 'nonJson', 'drop', ...ODD_ANSWERS];

export class Faults {
	private list: Fault[] = [];
	private nextId = 1;
	private rnd: Random;

	constructor(
		seed = 1,
		/** The account's clock, for outages of a given length. */
		private readonly now: () => number = Date.now,
	) {
		this.rnd = new Random(seed);
	}

	add(input: FaultInput): Fault {
		if (!KINDS.includes(input.kind)) throw new Error(`kind: expected one of ${KINDS.join(', ')}`);
		if (input.kind === 'status' && !(Number.isInteger(input.status) && input.status! >= 400 && input.status! <= 599)) {
			throw new Error('status: a fault of kind "status" needs an HTTP status from 400 to 599');
		}
		const share = input.share ?? 1;
		if (!(share >= 0 && share <= 1)) throw new Error('share: must be from 0 to 1');
		for (const name of ['skip', 'size', 'count', 'forMs'] as const) {
			const v = input[name];
			if (v !== undefined && !(Number.isSafeInteger(v) && v >= 0)) throw new Error(`${name}: must be a whole number of 0 or more`);
		}
		const fault: Fault = {
			id: this.nextId++,
			kind: input.kind,
			share,
			status: input.status,
			latencyMs: input.latencyMs ?? (input.kind === 'latency' ? 100 : undefined),
			path: input.path,
			remaining: input.count,
			skip: input.skip ?? 0,
			size: input.size,
			until: input.forMs === undefined ? undefined : this.now() + input.forMs,
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

	/**
	 * The faults of these kinds that strike this request (each drawn independently). Transport
	 * faults are drawn as a request arrives; odd answers only when a list answer is built, so a
	 * request refused before (a 429 on a busy machine) neither uses one up nor counts as skipped.
	 */
	draw(path: string, kinds: 'transport' | 'oddAnswer'): Fault[] {
		const hit: Fault[] = [];
		for (const f of this.list) {
			if (ODD_ANSWERS.includes(f.kind as OddAnswer) !== (kinds === 'oddAnswer')) continue;
			if (f.path && !path.startsWith(f.path)) continue;
			if (f.remaining !== undefined && f.remaining <= 0) continue;
			if (f.until !== undefined && this.now() >= f.until) continue;
			if (f.share < 1 && this.rnd.next() >= f.share) continue;
			if (f.skip > 0) {
				f.skip--;
				continue;
			}
			f.hits++;
			if (f.remaining !== undefined) f.remaining--;
			hit.push(f);
		}
		return hit;
	}
}

/** One list answer as the service builds it, before an odd answer bends it. */
export interface ListAnswer {
	count: number;
	next: string | null;
	previous: string | null;
	results: unknown[];
}

export interface ListPlan {
	/** The page of the list to serve (changed by `endlessNext`). */
	offset: number;
	/** Unreadable records placed before the list's own items (`wrongShape`). */
	head: unknown[];
}

const SAFE_LIMIT = 2 ** 53;

/** Records no reader can use; the test-result ones carry a readable id with a bad date or device. */
export function unreadableRecords(resource: string): unknown[] {
	const bad: unknown[] = [{ id: -3 }, { id: 0 }, { id: SAFE_LIMIT }, { id: 'abc' }, { id: '12x' }, { id: 1.5 }, { id: true }, 'a string', null, [1, 2], { name: 'no id' }];
	if (resource === 'testResult') {
		bad.push({ id: 900_000_001, device_id: 1, test_date: 'garbage', status: 'passed' }, { id: 900_000_002, device_id: 'x', test_date: '2026-01-01', status: 'passed' }, { id: 900_000_003, device_id: 1, test_date: 20260101, status: 'passed' });
	}
	return bad;
}

/** Which part of the list an odd answer serves (before the list is read). */
export function planList(hit: Fault[], resource: string, offset: number, limit: number): ListPlan {
	const odd = hit.find((f) => (ODD_ANSWERS as readonly string[]).includes(f.kind));
	return {
		offset: odd?.kind === 'endlessNext' ? (Math.floor(offset / limit) % 2) * limit : offset,
		head: odd?.kind === 'wrongShape' ? unreadableRecords(resource) : [],
	};
}

/**
 * Bends a list answer as the odd answers among `hit` say; `link(offset)` is the link to a page
 * of the same size. Returns a JSON string where the object could not be serialised (deep nesting).
 */
export function bendList(hit: Fault[], answer: ListAnswer, page: { offset: number; limit: number }, link: (offset: number) => string): ListAnswer | string {
	for (const f of hit) {
		switch (f.kind) {
			case 'countLow':
				answer.count = Math.floor(answer.count / 2);
				answer.next = page.offset + answer.results.length < answer.count ? link(page.offset + answer.results.length) : null;
				break;
			case 'countHigh':
				answer.count = answer.count * 2 + 10;
				break;
			case 'nextLoop':
				answer.next = link(page.offset);
				break;
			case 'nextBack':
				answer.next = link(Math.max(0, page.offset - page.limit));
				break;
			case 'endlessNext':
				answer.next = link(page.offset + page.limit);
				break;
			case 'emptyPage':
				answer.results = [];
				break;
			case 'emptyList':
				answer.results = [];
				answer.count = 0;
				answer.next = null;
				answer.previous = null;
				break;
			case 'pageTooLarge':
				answer.results = Array.from({ length: f.size ?? 1_000_000 }, (_, i) => ({ id: i + 1 }));
				break;
			case 'deepRecord': {
				const depth = 100_000;
				const deep = `{"id":1,"properties":${'['.repeat(depth)}${']'.repeat(depth)}}`;
				const rest = JSON.stringify(answer.results).slice(1);
				return `${JSON.stringify({ ...answer, results: [] }).replace('"results":[]', `"results":[${deep}${rest === ']' ? ']' : `,${rest}`}`)}`;
			}
			default:
				break;
		}
	}
	return answer;
}
