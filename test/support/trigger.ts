import { afterAll, beforeAll, beforeEach, vi } from 'vitest';
import type { IDataObject } from 'n8n-workflow';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/server';
import type { DemoSize } from '../../sandbox/demo';
import { DEVICE } from '../../sandbox/properties';
import { addDays } from '../../client/dates';
import { CREDENTIAL_TYPE, runPoll, type RunPollResult } from './n8n';

export const DAY_MS = 86_400_000;

const realNow = Date.now.bind(Date);

/**
 * A sandbox and the trigger on one clock. The service's time is noon UTC of today, running in
 * real time, plus the sandbox's clock offset; `Date.now` of this process (which the trigger reads
 * for "today") is made to show the same time, as the service and the n8n host agree in reality.
 * Noon keeps the day boundary far away from the test's real-time run.
 */
export interface World {
	sandbox: Sandbox;
	/** Moves the service's (and the trigger's) clock forward. */
	advance(ms: number): void;
	today(): string;
	stop(): Promise<void>;
}

export async function startWorld(size: Partial<DemoSize> = {}, options: Pick<SandboxOptions, 'profile'> = {}): Promise<World> {
	const now = new Date(realNow());
	const t0 = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 12);
	const r0 = realNow();
	const base = () => t0 + (realNow() - r0);
	const sandbox = await startSandbox({ port: 0, size, now: base, ...options });
	const spy = vi.spyOn(Date, 'now').mockImplementation(() => base() + sandbox.account.clockOffsetMs);
	return {
		sandbox,
		advance: (ms) => {
			sandbox.account.clockOffsetMs += ms;
		},
		today: () => sandbox.account.today(),
		stop: async () => {
			spy.mockRestore();
			await sandbox.stop();
		},
	};
}

/**
 * The preamble of a trigger test file: one world for the file, and before each test the
 * service's clock back at noon, the demo account reset (with `size`), no faults, an active
 * license. The returned object is filled in `beforeAll`.
 */
export function useWorld(size: Partial<DemoSize> = {}): World {
	const world = {} as World;
	beforeAll(async () => {
		Object.assign(world, await startWorld());
	});
	afterAll(async () => world.stop());
	beforeEach(() => {
		world.sandbox.account.clockOffsetMs = 0;
		world.sandbox.account.reset({ size });
		world.sandbox.account.license = 'active';
		world.sandbox.faults.clear();
	});
	return world;
}

/** A fresh token per poll: polls are not paced against each other (the trigger paces itself per token). */
export function credentials(sandbox: Sandbox, token = sandbox.account.createToken().token, extra: IDataObject = {}) {
	return { [CREDENTIAL_TYPE]: { accessToken: token, environment: 'sandbox', sandboxBaseUrl: sandbox.url, productionBaseUrl: '', ...extra } };
}

/** One trigger node of an active workflow: its parameters and its static data across polls. */
export class Poller {
	staticData: IDataObject = {};
	polls = 0;
	constructor(
		private readonly world: World,
		readonly parameters: IDataObject,
		/** More credential fields (a Service Profile). */
		private readonly credentialData: IDataObject = {},
	) {}

	/** One tick; throws when the poll failed. Returns the emitted records ([] for null). */
	async poll(): Promise<IDataObject[]> {
		const result = await this.tick();
		if (result.error) throw new Error(`poll failed: ${result.error.message} ${String(result.error.description ?? '')}`);
		return (result.items ?? []).map((i) => i.json);
	}

	/** One tick with the result as n8n gives it; the static data moves on as n8n would store it. */
	async tick(token?: string): Promise<RunPollResult> {
		this.polls++;
		const result = await runPoll({ parameters: this.parameters, credentials: credentials(this.world.sandbox, token, this.credentialData), staticData: this.staticData });
		if (!result.error) this.staticData = result.staticData;
		return result;
	}

	async manual(): Promise<RunPollResult> {
		return await runPoll({ parameters: this.parameters, credentials: credentials(this.world.sandbox), staticData: this.staticData, mode: 'manual' });
	}
}

/** Ids of the overdue devices, as the service decides it now. */
export function overdueNow(sandbox: Sandbox, where: (values: Record<number, unknown>) => boolean = () => true): Set<number> {
	const today = sandbox.account.today();
	const out = new Set<number>();
	for (const d of sandbox.account.data.devices.values()) if (sandbox.account.isOverdue(d, today) && where(d.values)) out.add(d.id);
	return out;
}

/** Makes a device overdue (Last tested long ago) or not (tested today). */
export function setOverdue(sandbox: Sandbox, id: number, overdue: boolean): void {
	const today = sandbox.account.today();
	sandbox.account.edit('device', { id, properties: { [DEVICE.lastTested]: overdue ? addDays(today, -800) : today } }, 'test');
}

/** A small deterministic random source. */
export function random(seed: number) {
	let s = seed >>> 0;
	const next = () => {
		s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
		return s / 2 ** 32;
	};
	return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)) };
}

export const ids = (records: IDataObject[]) => records.map((r) => Number(r.id)).sort((a, b) => a - b);
export const sorted = (set: Iterable<number>) => [...set].sort((a, b) => a - b);
