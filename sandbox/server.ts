import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { DEFAULT_PROFILE, FILTER_KEY_TYPE, ValidationError, fieldType, resolveProfile, testDetail, toWire, type OperationId, type Resource, type ServiceProfile, type ServiceProfileInput } from '../client';
import { Account, ApiError, type AccountOptions, type Scope, type TokenInfo } from './account';
import { buildOpenApi } from '../contract/openapi';
import { ADMIN_ROOT, registerAdmin } from './admin';
import { Faults, bendList, planList, type Fault } from './faults';
import { LiveMode } from './live';
import { DEFAULT_SEED } from './demo';
import { pagingNames, parseListRequest, runList, type ListSource } from './listing';
import type { PropRecord, Project, SubUser, TestResult } from './model';
import { RateLimiter } from './rateLimit';
import type { PagingSettings, Stats } from './stats';
import {
	fileContent,
	renderBinEntry,
	renderCustomer,
	renderDevice,
	renderOverdue,
	renderTestResult,
	renderTestResultDetail,
} from './render';
import { isoTime } from '../client/dates';

export interface SandboxOptions extends Omit<AccountOptions, 'profile'> {
	port?: number;
	host?: string;
	/** One line per request (status and time, never a token). Default: silent. */
	log?: (line: string) => void;
	/** The largest page answered; above it a list answers 400 naming the page size parameter (default: the profile's, refused only when a profile is given). */
	maxPageSize?: number;
	/**
	 * Separate accounts served at once (default 1): each its own demo data (seed + its index), tokens,
	 * clock, faults and live mode. A request is the account's whose token it carries, and each token
	 * has its own 5 requests per second.
	 */
	accounts?: number;
	/**
	 * Requests per second per token (default 5, the service's limit). Tests about paging or
	 * odd answers, not pacing, raise it with their clients' pacing so they do not wait on it.
	 */
	ratePerSecond?: number;
	/** The service layout to serve (paths, paging, field and property names; a partial profile is merged over the defaults). */
	profile?: ServiceProfileInput;
	/** The rate limit's clock in ms (default the real one): a simulated month paces on its own time. */
	rateLimitNow?: () => number;
}

/** One of the accounts a sandbox serves. */
export interface SandboxAccount {
	/** `account-1`, `account-2`, … */
	id: string;
	account: Account;
	faults: Faults;
	live: LiveMode;
	/** A token with every scope for this account. */
	token: string;
}

/** The most accounts one sandbox serves. */
export const MAX_SANDBOX_ACCOUNTS = 1000;

export interface Sandbox {
	/** Base URL without /api/v1. */
	url: string;
	adminUrl: string;
	/** A token with every scope for this account (the first one when there are several). */
	sandboxToken: string;
	account: Account;
	faults: Faults;
	/** Live mode: changes while lists are read, and the ground truth (sandbox/live.ts). */
	live: LiveMode;
	/** Every account served (the first is `account`, `faults`, `live` and `sandboxToken` above). */
	accounts: SandboxAccount[];
	stats: Stats;
	/** Paging settings, changeable while running (also `PUT /_admin/paging`). */
	paging: PagingSettings;
	/** The layout served. */
	profile: ServiceProfile;
	stop(): Promise<void>;
}

export type { Stats } from './stats';

export const API_ROOT = '/api/v1';

type Handler = (ctx: { request: FastifyRequest; reply: FastifyReply; token: TokenInfo; account: Account; served: SandboxAccount }) => unknown;

/** Scope each operation needs (documented in docs/sandbox.md, "The sandbox": tokens and scopes). */
const SCOPE: Record<OperationId, Scope | Scope[]> = {
	'customer.list': 'customers:read',
	'customer.create': 'customers:write',
	'customer.update': 'customers:write',
	'customer.delete': 'customers:write',
	'device.list': 'devices:read',
	'device.get': 'devices:read',
	'device.create': 'devices:write',
	'device.update': 'devices:write',
	'device.updateMany': 'devices:write',
	'device.delete': 'devices:write',
	'overdueDevice.list': 'devices:read',
	'testResult.list': 'test_results:read',
	'testResult.get': 'test_results:read',
	'project.list': 'projects:read',
	'subUser.list': 'users:read',
	'recycleBin.list': 'recycle_bin:read',
	'recycleBin.restore': 'recycle_bin:write',
	'file.downloadLink': 'files:read',
	'propertyKey.list': ['devices:read', 'customers:read'],
};

function propSource(account: Account, resource: 'device' | 'customer' | 'overdueDevice'): ListSource<PropRecord> {
	const own = resource === 'customer' ? 'customer' : 'device';
	return {
		resource,
		keyType: 'propertyKeyId',
		dataTypeOf: (key) => account.propertyKeys().find((k) => k.id === key && k.resource === own)?.data_type,
		value: (item, key) => item.values[key as number],
		searchable: (item) => Object.values(item.values),
		id: (item) => item.id,
	};
}

function fieldSource<T extends { id: number }>(resource: Resource, searchable: (item: T) => unknown[], profile: ServiceProfile): ListSource<T> {
	return {
		resource,
		keyType: FILTER_KEY_TYPE[resource],
		dataTypeOf: (key) => fieldType(resource, String(key), profile),
		value: (item, key) => (item as unknown as Record<string, string | number | null>)[key],
		searchable: searchable as ListSource<T>['searchable'],
		id: (item) => item.id,
	};
}

function idParam(request: FastifyRequest): number {
	const raw = (request.params as { id: string }).id;
	if (!/^\d+$/.test(raw)) throw new ApiError(400, `id: "${raw}" is not an id (a positive whole number).`);
	return Number(raw);
}

/** One object → one answer; an array → an array, all items validated before any is applied (all or nothing). */
function eachOf<P>(body: unknown, prepare: (item: unknown, where: string) => P, commit: (prepared: P) => unknown): unknown {
	if (Array.isArray(body)) {
		if (body.length === 0) throw new ApiError(400, 'body: the list is empty.');
		const prepared = body.map((item, i) => prepare(item, `body[${i}]`));
		return prepared.map(commit);
	}
	return commit(prepare(body, 'body'));
}

function createAccounts(options: SandboxOptions, profile: ServiceProfile): SandboxAccount[] {
	const count = options.accounts ?? 1;
	if (!Number.isInteger(count) || count < 1 || count > MAX_SANDBOX_ACCOUNTS) throw new Error(`accounts: expected a whole number from 1 to ${MAX_SANDBOX_ACCOUNTS}, got ${count}`);
	return Array.from({ length: count }, (_, i) => {
		// The first account is the single-account sandbox as it always was; the others differ by seed.
		const account = new Account({ ...options, profile, seed: (options.seed ?? DEFAULT_SEED) + i });
		const token = account.createToken({ label: 'demo (all scopes)' }).token;
		return { id: `account-${i + 1}`, account, faults: new Faults((options.seed ?? 1) + i, () => account.now()), live: new LiveMode(account), token };
	});
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const profile = options.profile === undefined ? DEFAULT_PROFILE : resolveProfile(options.profile);
	const accounts = createAccounts(options, profile);
	const first = accounts[0];
	/** The account whose token a request carries; the first when it carries none it knows (it answers the 401). */
	const accountOf = (request: FastifyRequest): SandboxAccount => {
		const token = /^Token\s+(\S+)\s*$/.exec(request.headers.authorization ?? '')?.[1];
		return (token !== undefined && accounts.length > 1 && accounts.find((a) => a.account.hasToken(token))) || first;
	};
	const limiter = new RateLimiter(options.ratePerSecond, undefined, options.rateLimitNow);
	const stats: Stats = { requests: 0, byStatus: {}, byPath: {}, byAccount: {} };
	const paging: PagingSettings = { maxPageSize: options.maxPageSize ?? (options.profile ? profile.paging.maxPageSize : undefined) };
	const [sizeParam] = pagingNames(profile);
	const log = options.log ?? (() => undefined);
	const app: FastifyInstance = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true }, bodyLimit: 10 * 1024 * 1024 });

	app.addHook('onRequest', async (request) => {
		(request as FastifyRequest & { startedAt?: number }).startedAt = performance.now();
	});
	app.addHook('onResponse', async (request, reply) => {
		stats.requests++;
		stats.byStatus[reply.statusCode] = (stats.byStatus[reply.statusCode] ?? 0) + 1;
		const route = request.url.split('?')[0];
		stats.byPath[route] = (stats.byPath[route] ?? 0) + 1;
		const served = accountOf(request).id;
		stats.byAccount[served] = (stats.byAccount[served] ?? 0) + 1;
		const started = (request as FastifyRequest & { startedAt?: number }).startedAt ?? performance.now();
		const path = request.url.replace(/\/files\/download\/[^/?]+/, '/files/download/…');
		log(`${isoTime(Date.now())} ${request.method} ${path} ${reply.statusCode} ${(performance.now() - started).toFixed(1)}ms`);
	});

	app.setErrorHandler((error: unknown, _request, reply) => {
		if (error instanceof ApiError) {
			return reply.status(error.status).headers(error.headers).send({ description: error.description });
		}
		if (error instanceof ValidationError) return reply.status(400).send({ description: error.message });
		const e = error as { statusCode?: number; code?: string; message?: string };
		if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
			const what = e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || /JSON/.test(e.message ?? '') ? 'The body is not valid JSON' : 'Bad request';
			return reply.status(e.statusCode === 413 ? 400 : e.statusCode).send({ description: `${what}: ${e.message ?? ''}`.trim() });
		}
		return reply.status(500).send({ description: 'Unexpected server error.' });
	});
	app.setNotFoundHandler((request, reply) => {
		reply.status(404).send({ description: `No endpoint ${request.method} ${request.url.split('?')[0]}.` });
	});

	// A page larger than the configured maximum is refused first (so it draws no fault).
	app.addHook('onRequest', async (request, reply) => {
		const limit = Number(new URLSearchParams(request.url.split('?')[1] ?? '').get(sizeParam));
		if (request.method === 'GET' && request.url.startsWith(API_ROOT) && paging.maxPageSize !== undefined && limit > paging.maxPageSize) {
			return reply.status(400).send({ description: `${sizeParam}: must be a whole number from 1 to ${paging.maxPageSize}, got ${limit}.` });
		}
	});
	// Transport faults strike before everything else the service does (odd answers: in listPage).
	app.addHook('onRequest', async (request, reply) => {
		if (!request.url.startsWith(API_ROOT)) return;
		const hit = accountOf(request).faults.draw(request.url.slice(API_ROOT.length).split('?')[0], 'transport');
		(request as FastifyRequest & { faults?: Fault[] }).faults = hit;
		for (const f of hit) {
			if (f.kind === 'latency') await new Promise((r) => setTimeout(r, f.latencyMs));
		}
		if (hit.some((f) => f.kind === 'drop')) {
			request.raw.socket.destroy();
			return reply;
		}
		const status = hit.find((f) => f.kind === 'status');
		if (status) return reply.status(status.status!).send({ description: `Injected fault: HTTP ${status.status}.` });
	});
	app.addHook('onSend', async (request, reply, payload) => {
		const hit = (request as FastifyRequest & { faults?: Fault[] }).faults ?? [];
		if (hit.some((f) => f.kind === 'nonJson')) {
			reply.header('content-type', 'text/html');
			return '<html><body><h1>502 Bad Gateway</h1><p>upstream proxy error</p></body></html>';
		}
		if (hit.some((f) => f.kind === 'truncate') && typeof payload === 'string') return payload.slice(0, Math.max(1, Math.floor(payload.length / 2)));
		return payload;
	});

	function authorize(request: FastifyRequest, scope: Scope | Scope[] | undefined, { account, id }: SandboxAccount): TokenInfo {
		if (account.maintenance) throw new ApiError(451, 'The service is under maintenance. Please try again later.');
		const token = account.authenticate(request.headers.authorization);
		if (account.license !== 'active') {
			throw new ApiError(account.license === 'expired427' ? 427 : 426, 'The licence of this account has expired. Renew it to use the interface.');
		}
		const wait = limiter.take(`${id} ${token.id}`);
		if (wait !== undefined) {
			throw new ApiError(429, 'Request was throttled: at most 5 requests per second per access token.', { 'retry-after': String(Math.ceil(wait / 1000)) });
		}
		const anyOf = scope === undefined ? [] : Array.isArray(scope) ? scope : [scope];
		if (scope !== undefined && !anyOf.some((s) => token.scopes.has(s))) {
			throw new ApiError(413, `Permission denied: the access token lacks the "${anyOf.join('" or "')}" scope. Edit the token on the Administration page, API Access tab.`);
		}
		return token;
	}

	/** Methods per path, for OPTIONS (answered like Django REST framework: Allow, and a body naming them). */
	const allowed = new Map<string, Set<string>>();

	function route(operation: OperationId, handler: Handler): void {
		const { method, path } = profile.operations[operation];
		const url = API_ROOT + path.replace(/\{(\w+)\}/g, ':$1');
		if (!allowed.has(url)) {
			allowed.set(url, new Set(['OPTIONS']));
			app.route({
				method: 'OPTIONS',
				url,
				handler: async (request, reply) => {
					authorize(request, undefined, accountOf(request));
					const methods = [...allowed.get(url)!].sort();
					return reply.header('allow', methods.join(', ')).send({ name: path, methods });
				},
			});
		}
		allowed.get(url)!.add(method);
		app.route({
			method,
			url: API_ROOT + path.replace(/\{(\w+)\}/g, ':$1'),
			handler: async (request, reply) => {
				const served = accountOf(request);
				const token = authorize(request, SCOPE[operation], served);
				return handler({ request, reply, token, account: served.account, served });
			},
		});
	}

	function listPage<T>({ faults, live }: SandboxAccount, request: FastifyRequest, source: ListSource<T>, all: Iterable<T>, render: (item: T, enabled?: number[]) => unknown, enabled = false) {
		const query = request.query as Record<string, string | string[]>;
		const list = parseListRequest(source, query, { enabled, profile });
		const hit = faults.draw(request.url.slice(API_ROOT.length).split('?')[0], 'oddAnswer');
		const plan = planList(hit, source.resource, list.offset, list.limit);
		const head = plan.head.slice(plan.offset, plan.offset + list.limit);
		const { count, items } = runList(source, all, { ...list, offset: Math.max(0, plan.offset - plan.head.length), limit: list.limit - head.length });
		const total = count + plan.head.length;
		const served = head.length + items.length;
		const p = profile.paging;
		const [sizeName, positionName] = pagingNames(profile);
		const link = (offset: number) => {
			const params = new URLSearchParams();
			for (const [k, v] of Object.entries(query)) if (k !== sizeName && k !== positionName) params.append(k, String(v));
			params.set(sizeName, String(list.limit));
			params.set(positionName, String(p.style === 'limitOffset' ? offset : Math.floor(offset / list.limit) + p.firstPage));
			return `${request.protocol}://${request.headers.host}${request.url.split('?')[0]}?${params.toString()}`;
		};
		const answer = {
			count: total,
			next: plan.offset + served < total ? link(list.offset + served) : null,
			previous: list.offset > 0 ? link(Math.max(0, list.offset - list.limit)) : null,
			results: [...head, ...items.map((item) => toWire(profile, source.resource, render(item, list.enabled)))],
		};
		live.pageServed();
		return envelope(bendList(hit, answer, list, link));
	}

	/** The list answer under the profile's keys (a bare array when `itemsKey` is null). */
	function envelope(answer: ReturnType<typeof bendList>): unknown {
		const p = profile.paging;
		if (typeof answer === 'string' || (p.itemsKey === 'results' && p.countKey === 'count' && p.nextKey === 'next')) return answer;
		if (!answer || typeof answer !== 'object' || !Array.isArray((answer as { results?: unknown }).results)) return answer;
		const { count, next, previous, results, ...rest } = answer as { count?: unknown; next?: unknown; previous?: unknown; results: unknown[] };
		if (p.itemsKey === null) return results;
		return {
			...rest,
			...(p.countKey === null ? {} : { [p.countKey]: count }),
			...(p.nextKey === null ? {} : { [p.nextKey]: next }),
			previous,
			[p.itemsKey]: results,
		};
	}

	// ---- customers and devices ---------------------------------------------------------
	route('customer.list', ({ request, account, served }) =>
		listPage(served, request, propSource(account, 'customer'), account.data.customers.values(), (c, en) => renderCustomer(account, c, en), true));
	route('customer.create', ({ request, reply, account }) => {
		reply.status(201);
		return eachOf(request.body, (item, where) => account.prepareCreate('customer', item, where), (r) => renderCustomer(account, account.commitCreate('customer', r)));
	});
	route('customer.update', ({ request, account }) =>
		eachOf(request.body, (item, where) => account.prepareEdit('customer', item, where), (e) => renderCustomer(account, account.commitEdit(e))));
	route('customer.delete', ({ request, account }) => deleteItem(account, request, 'customer'));

	route('device.list', ({ request, account, served }) =>
		listPage(served, request, propSource(account, 'device'), account.data.devices.values(), (d, en) => renderDevice(account, d, en), true));
	route('device.get', ({ request, account }) => renderDevice(account, account.get('device', idParam(request))));
	route('device.create', ({ request, reply, account }) => {
		reply.status(201);
		return eachOf(request.body, (item, where) => account.prepareCreate('device', item, where), (r) => renderDevice(account, account.commitCreate('device', r)));
	});
	route('device.update', ({ request, account }) =>
		eachOf(request.body, (item, where) => account.prepareEdit('device', item, where), (e) => renderDevice(account, account.commitEdit(e))));
	route('device.updateMany', ({ request, account }) => {
		const records = account.multipleEdit(request.body);
		return { updated: records.length, results: records.map((d) => renderDevice(account, d)) };
	});
	route('device.delete', ({ request, account }) => deleteItem(account, request, 'device'));

	function deleteItem(account: Account, request: FastifyRequest, resource: 'device' | 'customer') {
		const direct = Object.prototype.hasOwnProperty.call(request.query as object, 'direct_delete');
		const out = account.delete(resource, idParam(request), direct);
		return { id: out.id, deleted: true, direct_delete: direct, recycle_bin_id: out.recycle_bin_id };
	}

	route('overdueDevice.list', ({ request, account, served }) => {
		const today = account.today();
		const overdue = function* () {
			for (const d of account.data.devices.values()) if (account.isOverdue(d, today)) yield d;
		};
		return listPage(served, request, propSource(account, 'overdueDevice'), overdue(), (d, en) => renderOverdue(account, d, today, en), true);
	});

	// ---- test results, projects, users ------------------------------------------------------
	route('testResult.list', ({ request, account, served }) =>
		listPage(
			served,
			request,
			fieldSource<TestResult>('testResult', (r) => [r.status, r.tester, r.test_sequence], profile),
			account.data.testResults.values(),
			(r) => renderTestResult(account, r),
		));
	route('testResult.get', ({ request, account }) => testDetail(profile, toWire(profile, 'testResult', renderTestResultDetail(account, account.testResult(idParam(request)))), true));
	route('project.list', ({ request, account, served }) =>
		listPage(served, request, fieldSource<Project>('project', (p) => [p.name, p.status], profile), account.data.projects, (p) => p));
	route('subUser.list', ({ request, account, served }) =>
		listPage(
			served,
			request,
			fieldSource<SubUser>('subUser', (u) => [u.username, u.email, u.first_name, u.last_name, u.role], profile),
			account.data.users,
			(u) => u,
		));

	// ---- recycle bin ------------------------------------------------------------------------
	route('recycleBin.list', ({ request, account, served }) =>
		listPage(
			served,
			request,
			fieldSource<ReturnType<typeof renderBinEntry>>('recycleBin', (e) => [e.name, e.resource], profile),
			[...account.recycleBin.values()].map(renderBinEntry),
			(e) => e,
		));
	route('recycleBin.restore', ({ request, account }) => {
		const entry = account.restore(idParam(request));
		const record = entry.resource === 'device' ? renderDevice(account, entry.record) : renderCustomer(account, entry.record);
		return { restored: true, resource: entry.resource, item: record };
	});

	// ---- files ------------------------------------------------------------------------------
	route('file.downloadLink', ({ request, account }) => {
		const fileId = idParam(request);
		const file = account.file(fileId);
		const link = account.createLink(fileId);
		return {
			url: `${request.protocol}://${request.headers.host}${API_ROOT}/files/download/${link.key}/`,
			expires_at: isoTime(link.expiresAt),
			file_name: file.fileName,
			mime_type: file.mimeType,
		};
	});
	// The link itself is the credential (valid 5 minutes); no token is needed to follow it.
	app.get(`${API_ROOT}/files/download/:key/`, async (request, reply) => {
		const key = (request.params as { key: string }).key;
		const account = (accounts.find((a) => a.account.hasLink(key)) ?? first).account;
		const fileId = account.resolveLink(key);
		const file = account.file(fileId);
		return reply
			.header('content-type', file.mimeType)
			.header('content-disposition', `attachment; filename="${file.fileName}"`)
			.send(fileContent(account, fileId));
	});

	route('propertyKey.list', ({ request, account, served }) =>
		listPage(
			served,
			request,
			fieldSource<ReturnType<Account['propertyKeys']>[number]>('propertyKey', (k) => [k.name], profile),
			account.propertyKeys(),
			(k) => k,
		));

	// The published contract (generated from the client's catalogue and the zod schemas).
	const openApi = buildOpenApi(profile);
	app.get(`${API_ROOT}/openapi.json`, async () => openApi);

	registerAdmin(app, { account: first.account, faults: first.faults, stats, paging, live: first.live });
	// Every account of several has the same controls under its own path (the first's are also at /_admin).
	if (accounts.length > 1) for (const a of accounts) registerAdmin(app, { account: a.account, faults: a.faults, stats, paging, live: a.live }, `${ADMIN_ROOT}/accounts/${a.id}`);

	await app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
	const address = app.server.address();
	if (!address || typeof address === 'string') throw new Error('the sandbox did not get a TCP address');
	const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
	const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`;
	return {
		url,
		adminUrl: `${url}/_admin`,
		sandboxToken: first.token,
		account: first.account,
		faults: first.faults,
		live: first.live,
		accounts,
		stats,
		paging,
		profile,
		stop: async () => {
			await app.close();
		},
	};
}

