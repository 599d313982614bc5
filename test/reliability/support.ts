/**
 * Shared pieces of the reliability tests: real clients of every face, a "foreign host" that must
 * never be contacted, the `npm start` runner as a child process, and a guard for unhandled
 * rejections.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PacerRegistry, SERVICE_RATE, ServiceClient, parseBaseUrl, sharedPacers, tokenPacingKey, type ClientEvent, type Clock, type RetryOptions, type ServiceProfile } from '../../client';
import { addDays } from '../../client/dates';
import { systemClock, undiciRequestFn } from '../../lambdas/adapters/undiciService';
import { DEVICE } from '../../sandbox/properties';
import type { Sandbox } from '../../sandbox/server';

export const ROOT = join(__dirname, '..', '..');

/** Pacers for sandboxes started with a higher `ratePerSecond`, one registry per rate. */
const fasterPacers = new Map<number, PacerRegistry>();

/**
 * A client wired exactly as `connectService` (lambdas/adapters/undiciService.ts) wires it for the
 * Lambdas and the runner (undici request function holding the token, the token's shared pacer),
 * with the retry bounds and timeout made short for tests through the documented options.
 * `ratePerSecond` paces it for a sandbox started with that rate (paging tests, not pacing ones).
 */
export function pollerClient(
	sandbox: Sandbox,
	token: string,
	options: { retry?: Partial<RetryOptions>; timeoutMs?: number; onEvent?: (e: ClientEvent) => void; baseUrl?: string; ratePerSecond?: number; profile?: ServiceProfile; clock?: Clock } = {},
): ServiceClient {
	// The token's pacer keeps the clock of the client that made it first.
	const clock = options.clock ?? systemClock;
	const baseUrl = parseBaseUrl(options.baseUrl ?? sandbox.url);
	const rate = options.ratePerSecond ?? SERVICE_RATE.maxRequests;
	if (rate !== SERVICE_RATE.maxRequests && !fasterPacers.has(rate)) fasterPacers.set(rate, new PacerRegistry({ ...SERVICE_RATE, maxRequests: rate }));
	const pacers = fasterPacers.get(rate) ?? sharedPacers;
	return new ServiceClient({
		baseUrl,
		request: undiciRequestFn(token),
		requestAnonymous: undiciRequestFn(undefined),
		clock,
		pacer: pacers.forKey(tokenPacingKey(token, 'sandbox', baseUrl), clock),
		retry: options.retry,
		timeoutMs: options.timeoutMs,
		onEvent: options.onEvent,
		profile: options.profile,
	});
}

/** Short retry bounds for the pollers in tests: same backoff shape, ~2 s budget per request. */
export const FAST_RETRY: Partial<RetryOptions> = { maxAttempts: 6, maxTotalWaitMs: 2000, baseDelayMs: 100, maxDelayMs: 1000, maintenanceDelayMs: 300 };

export const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` until it returns a truthy value or `timeoutMs` passes (then throws `what`). */
export async function waitFor<T>(check: () => T | undefined | false | null, timeoutMs: number, what: string): Promise<T> {
	const until = Date.now() + timeoutMs;
	for (;;) {
		const v = check();
		if (v) return v;
		if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
		await delay(25);
	}
}

/** A device that is not overdue yet, made overdue (last tested ~2.5 years ago). */
export function makeOverdue(sandbox: Sandbox, used: Set<number>): number {
	const account = sandbox.account;
	const device = [...account.data.devices.values()].find((d) => !used.has(d.id) && !account.isOverdue(d));
	if (!device) throw new Error('no device left to make overdue');
	used.add(device.id);
	account.edit('device', { id: device.id, properties: { [DEVICE.lastTested]: addDays(account.today(), -900) } }, 'test');
	if (!account.isOverdue(device)) throw new Error(`device ${device.id} did not become overdue`);
	return device.id;
}

// ---- the foreign host ----------------------------------------------------------------------------
export interface ForeignHost {
	url: string;
	/** Every request it received (method, url, headers). */
	received: Array<{ method?: string; url?: string; headers: IncomingMessage['headers'] }>;
	stop(): Promise<void>;
}

/** A second local server standing in for "another host": tests assert it received nothing. */
export async function startForeignHost(): Promise<ForeignHost> {
	const received: ForeignHost['received'] = [];
	const server: Server = createServer((req, res) => {
		received.push({ method: req.method, url: req.url, headers: req.headers });
		res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[{"id":999}],"next":null}');
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		received,
		stop: () => new Promise((r) => server.close(() => r())),
	};
}

// ---- the runner as a child process ---------------------------------------------------------------
export interface RunnerChild {
	child: ChildProcessWithoutNullStreams;
	stdout: string[];
	stderr: string[];
	/** JSON events printed on stdout. */
	events(): Array<{ 'detail-type': string; detail: { metadata: { dedupeKey: string }; data: Record<string, unknown> } }>;
	/** JSON log lines on stderr (non-JSON lines are kept as { raw }). */
	logs(): Array<Record<string, unknown>>;
	exited(): Promise<number | null>;
}

export const START = ['--import', 'tsx', join(ROOT, 'bin', 'start.ts')];

export function spawnRunner(args: string[], env: Record<string, string>): RunnerChild {
	// Without the first run's backfill of measured values (2 requests a second for the first 90 s of a
	// real account's run) unless a test asks for it: it has tests of its own (test/lambdas/measurementBackfill.test.ts).
	const child = spawn(process.execPath, [...START, ...args], { cwd: ROOT, env: { ...process.env, BACKFILL_SHARE: '0', ...env } });
	const stdout: string[] = [];
	const stderr: string[] = [];
	const lines = (into: string[]) => {
		let rest = '';
		return (chunk: Buffer) => {
			rest += chunk.toString('utf8');
			const parts = rest.split('\n');
			rest = parts.pop() ?? '';
			into.push(...parts.filter((l) => l !== ''));
		};
	};
	child.stdout.on('data', lines(stdout));
	child.stderr.on('data', lines(stderr));
	const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
	return {
		child,
		stdout,
		stderr,
		events: () => stdout.map((l) => JSON.parse(l)),
		logs: () =>
			stderr.map((l) => {
				try {
					return JSON.parse(l) as Record<string, unknown>;
				} catch {
					return { raw: l };
				}
			}),
		exited: () => exit,
	};
}

// ---- unhandled rejections -----------------------------------------------------------------------
export function trackUnhandled(): { seen: unknown[]; stop(): void } {
	const seen: unknown[] = [];
	const onRejection = (reason: unknown) => seen.push(reason);
	process.on('unhandledRejection', onRejection);
	return { seen, stop: () => process.off('unhandledRejection', onRejection) };
}
