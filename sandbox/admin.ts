import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isLoopbackHost } from '../client';
import { ApiError, SCOPES, type Account, type Environment, type LicenseState } from './account';
import type { Faults, FaultInput } from './faults';
import type { LiveMode } from './live';
import type { PagingSettings, Stats } from './stats';
import type { UploadedMeasurement } from './model';

export const ADMIN_ROOT = '/_admin';

/**
 * The sandbox's own controls, outside the service's interface: tokens, reset, maintenance,
 * licence, clock, versioning drill, fault injection (incl. odd list answers), late link fetches, page size, simulated test-result uploads.
 * Only answered on loopback connections.
 */
export function registerAdmin(app: FastifyInstance, ctx: { account: Account; faults: Faults; stats: Stats; paging: PagingSettings; live: LiveMode }, prefix = ADMIN_ROOT): void {
	const { account, faults, stats, paging, live } = ctx;
	const body = (r: FastifyRequest) => (r.body ?? {}) as Record<string, unknown>;

	app.register(
		async (admin) => {
			admin.addHook('onRequest', async (request) => {
				const remote = request.socket.remoteAddress ?? '';
				if (!isLoopbackHost(remote.replace(/^::ffff:/, '')) && remote !== '::1') {
					throw new ApiError(403, 'The sandbox admin interface only answers on loopback.');
				}
			});

			admin.get('/', async () => ({
				environment: account.environment,
				now: new Date(account.now()).toISOString(),
				today: account.today(),
				maintenance: account.maintenance,
				license: account.license,
				extraFields: account.extraFields,
				counts: {
					customers: account.data.customers.size,
					devices: account.data.devices.size,
					testResults: account.data.testResults.size,
					recycleBin: account.recycleBin.size,
				},
				scopes: SCOPES,
				faults: faults.all(),
			}));

			admin.get('/tokens', async () => account.listTokens());
			admin.post('/tokens', async (request, reply) => {
				const b = body(request);
				const expiresAt = b.expires_at === undefined || b.expires_at === null ? null : Date.parse(String(b.expires_at));
				if (expiresAt !== null && Number.isNaN(expiresAt)) throw new ApiError(400, 'expires_at: expected an ISO date-time.');
				if (b.environment !== undefined && b.environment !== 'sandbox' && b.environment !== 'production') {
					throw new ApiError(400, 'environment: expected sandbox or production.');
				}
				reply.status(201);
				return account.createToken({
					environment: b.environment as Environment | undefined,
					scopes: Array.isArray(b.scopes) ? (b.scopes as string[]) : undefined,
					expiresAt,
					label: typeof b.label === 'string' ? b.label : undefined,
				});
			});
			admin.delete('/tokens/:id', async (request) => {
				const ok = account.deleteToken(Number((request.params as { id: string }).id));
				if (!ok) throw new ApiError(404, 'No such token.');
				return { deleted: true };
			});

			admin.post('/reset', async (request) => {
				const b = body(request);
				if (b.test_results !== undefined && b.test_results !== null && !(Number.isSafeInteger(b.test_results) && (b.test_results as number) >= 0)) {
					throw new ApiError(400, `test_results: expected a whole number of 0 or more (keep the newest N results), or null (every device's whole history); got ${JSON.stringify(b.test_results)}.`);
				}
				account.reset({
					seed: typeof b.seed === 'number' ? b.seed : undefined,
					size: {
						...(typeof b.devices === 'number' ? { devices: b.devices } : {}),
						...(typeof b.customers === 'number' ? { customers: b.customers } : {}),
						// null: every device's whole history again; absent: as the account has it now.
						...(typeof b.test_results === 'number' || b.test_results === null ? { testResults: b.test_results ?? undefined } : {}),
					},
				});
				return { reset: true, devices: account.data.devices.size, test_results: account.data.testResults.size };
			});
			admin.put('/maintenance', async (request) => {
				account.maintenance = body(request).on === true;
				return { maintenance: account.maintenance };
			});
			admin.put('/license', async (request) => {
				const state = body(request).state;
				if (state !== 'active' && state !== 'expired' && state !== 'expired427') throw new ApiError(400, 'state: expected active, expired (426) or expired427.');
				account.license = state as LicenseState;
				return { license: account.license };
			});
			admin.put('/versioning', async (request) => {
				account.extraFields = body(request).extra_fields === true;
				return { extra_fields: account.extraFields };
			});
			admin.put('/clock', async (request) => {
				const b = body(request);
				if (typeof b.now === 'string') {
					const at = Date.parse(b.now);
					if (Number.isNaN(at)) throw new ApiError(400, 'now: expected an ISO date-time.');
					account.clockOffsetMs += at - account.now();
				}
				if (typeof b.advance_days === 'number') account.clockOffsetMs += b.advance_days * 86_400_000;
				if (typeof b.advance_ms === 'number') account.clockOffsetMs += b.advance_ms;
				return { now: new Date(account.now()).toISOString(), today: account.today() };
			});

			// Link fetches that arrive late (after slow retries), to see a download link expire: 410.
			admin.put('/links', async (request) => {
				const b = body(request);
				const lateBy = b.late_by_ms;
				const count = b.count ?? 1;
				if (!(Number.isSafeInteger(lateBy) && (lateBy as number) >= 0)) throw new ApiError(400, 'late_by_ms: expected a whole number of milliseconds, 0 or more.');
				if (!(Number.isSafeInteger(count) && (count as number) >= 0)) throw new ApiError(400, 'count: expected a whole number of link fetches, 0 or more.');
				account.lateLinkFetches = count === 0 ? undefined : { lateByMs: lateBy as number, count: count as number };
				return { late_by_ms: lateBy, count };
			});

			admin.get('/paging', async () => ({ max_page_size: paging.maxPageSize ?? null }));
			admin.put('/paging', async (request) => {
				const max = body(request).max_page_size;
				if (max !== null && !(typeof max === 'number' && Number.isSafeInteger(max) && max >= 1)) {
					throw new ApiError(400, 'max_page_size: expected a whole number of at least 1, or null for no limit below the maximum.');
				}
				paging.maxPageSize = max ?? undefined;
				return { max_page_size: paging.maxPageSize ?? null };
			});

			admin.get('/faults', async () => faults.all());
			admin.post('/faults', async (request, reply) => {
				try {
					reply.status(201);
					return faults.add(body(request) as unknown as FaultInput);
				} catch (e) {
					throw new ApiError(400, (e as Error).message);
				}
			});
			admin.delete('/faults', async () => {
				faults.clear();
				return { cleared: true };
			});

			admin.post('/test-results', async (request, reply) => {
				const b = body(request);
				const steps = b.steps === undefined ? undefined : Number(b.steps);
				const failedSteps = b.failed_steps === undefined ? undefined : Number(b.failed_steps);
				// The statuses the sandbox's results carry, exactly (the spec lists none; nothing says the service reads "Failed" as failed).
				if (b.status !== undefined && b.status !== 'passed' && b.status !== 'failed') throw new ApiError(400, `status: expected "passed" or "failed", got ${JSON.stringify(b.status)}.`);
				if (steps !== undefined && (!Number.isSafeInteger(steps) || steps < 1 || steps > 100_000)) throw new ApiError(400, 'steps: expected a whole number from 1 to 100000.');
				if (failedSteps !== undefined && (!Number.isSafeInteger(failedSteps) || failedSteps < 0 || failedSteps > (steps ?? 5))) {
					throw new ApiError(400, 'failed_steps: expected a whole number from 0 to steps.');
				}
				const measured = uploadedMeasurements(b.measurements);
				reply.status(201);
				return account.syncTestResult({
					device_id: Number(b.device_id),
					status: (b.status ?? 'passed') as 'passed' | 'failed',
					test_date: typeof b.test_date === 'string' ? b.test_date : undefined,
					synced_time: typeof b.synced_time === 'string' ? b.synced_time : undefined,
					performed: steps === undefined && failedSteps === undefined ? undefined : { steps: steps ?? 5, failedSteps: failedSteps ?? (b.status === 'failed' ? 1 : 0) },
					measured,
				});
			});
			admin.post('/projects/:id/touch', async (request) => {
				account.touchProject(Number((request.params as { id: string }).id));
				return { touched: true };
			});
			admin.get('/stats', async () => stats);

			// Live mode: changes while lists are read; GET answers the ground truth.
			admin.get('/live', async () => live.truth());
			admin.put('/live', async (request) => {
				try {
					return { on: live.on, ...live.configure(body(request)) };
				} catch (e) {
					throw new ApiError(400, (e as Error).message);
				}
			});
			admin.post('/live/step', async (request) => {
				const changes = body(request).changes ?? 1;
				if (typeof changes !== 'number' || !Number.isSafeInteger(changes) || changes < 0 || changes > 10_000) {
					throw new ApiError(400, 'changes: expected a whole number from 0 to 10000.');
				}
				return { changes: live.step(changes) };
			});
		},
		{ prefix },
	);
}

/**
 * `measurements: [{step, value, unit, low_limit, high_limit}]` of an upload: a step needs a name;
 * the rest is served as given (numbers, texts, nulls), so a test can send a series with known
 * numbers or a bad measurement.
 */
function uploadedMeasurements(raw: unknown): UploadedMeasurement[] | undefined {
	if (raw === undefined) return undefined;
	if (!Array.isArray(raw) || raw.length > 100) throw new ApiError(400, 'measurements: expected a list of up to 100 {step, value, unit, low_limit, high_limit}.');
	return raw.map((m, i) => {
		const o = (m ?? {}) as Record<string, unknown>;
		if (typeof o.step !== 'string' || o.step === '') throw new ApiError(400, `measurements[${i}].step: expected the step's name.`);
		return { step: o.step, value: o.value ?? null, unit: o.unit ?? null, low_limit: o.low_limit ?? null, high_limit: o.high_limit ?? null };
	});
}
