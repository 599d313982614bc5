import { randomBytes } from 'node:crypto';
import { Random } from './random';
import { DEFAULT_SEED, DEFAULT_SIZE, generateDemo, type DemoSize } from './demo';
import type { AccountData, BinEntry, PropRecord, PropValue, TestResult } from './model';
import { CUSTOMER, DEVICE, READ_ONLY_KEYS, propertyKeysOf, type PropertyKey } from './properties';
import { addMonths, dayString, isoTime } from '../client/dates';
import { DEFAULT_PROFILE, isCalendarDate, isDecimalNumber, type ServiceProfile } from '../client';

/** An error the sandbox answers with: status plus the spec's `description`. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly description: string,
		readonly headers: Record<string, string> = {},
	) {
		super(description);
	}
}

export type Environment = 'sandbox' | 'production';

/**
 * Permission scopes (the spec does not name them): read and write per resource.
 * A token created without explicit scopes gets all of them.
 */
export const SCOPES = [
	'customers:read',
	'customers:write',
	'devices:read',
	'devices:write',
	'test_results:read',
	'projects:read',
	'users:read',
	'recycle_bin:read',
	'recycle_bin:write',
	'files:read',
] as const;
export type Scope = (typeof SCOPES)[number];

export interface TokenInfo {
	id: number;
	label: string;
	environment: Environment;
	scopes: ReadonlySet<Scope>;
	/** ms since epoch (account clock) or null = until deleted. */
	expiresAt: number | null;
}

export type LicenseState = 'active' | 'expired' | 'expired427';

export interface AccountOptions {
	seed?: number;
	size?: Partial<DemoSize>;
	environment?: Environment;
	/** The real clock; the account's clock is this plus the admin offset. */
	now?: () => number;
	/** The service layout to serve; its property roles name the account's properties. */
	profile?: ServiceProfile;
}

export const LINK_VALIDITY_MS = 5 * 60_000;

export class Account {
	readonly environment: Environment;
	private readonly baseNow: () => number;
	clockOffsetMs = 0;
	/** The account's property keys, named as the profile's property roles say. */
	private readonly keys: readonly PropertyKey[];
	maintenance = false;
	license: LicenseState = 'active';
	/** Versioning drill: add fields and enum values clients do not know. */
	extraFields = false;

	data!: AccountData;
	recycleBin = new Map<number, BinEntry>();
	private nextIds = { device: 0, customer: 0, testResult: 0, bin: 0 };
	private seed: number;
	private size: DemoSize;

	private readonly tokens = new Map<string, TokenInfo>();
	private nextTokenId = 1;
	private readonly links = new Map<string, { fileId: number; expiresAt: number }>();
	/**
	 * The next `count` link fetches arrive `lateByMs` after their request on the account's clock
	 * (slow retries between generating a link and fetching it); a link still lives 5 minutes.
	 */
	lateLinkFetches: { lateByMs: number; count: number } | undefined;

	constructor(options: AccountOptions = {}) {
		this.environment = options.environment ?? 'sandbox';
		this.baseNow = options.now ?? Date.now;
		this.seed = options.seed ?? DEFAULT_SEED;
		this.size = { ...DEFAULT_SIZE, ...options.size };
		this.keys = propertyKeysOf(options.profile ?? DEFAULT_PROFILE);
		this.reset();
	}

	now(): number {
		return this.baseNow() + this.clockOffsetMs;
	}

	today(): string {
		return dayString(this.now());
	}

	/** Back to the demo data (the real sandbox's reset button). Tokens and settings stay. */
	reset(options: { seed?: number; size?: Partial<DemoSize> } = {}): void {
		if (options.seed !== undefined) this.seed = options.seed;
		if (options.size) this.size = { ...this.size, ...options.size };
		this.data = generateDemo(this.seed, this.size, this.now());
		this.recycleBin.clear();
		for (const e of this.data.recycleBin) this.recycleBin.set(e.id, e);
		this.links.clear();
		this.lateLinkFetches = undefined;
		this.nextIds = {
			// The scrapped devices' ids follow the list's: a new device gets the next one after them.
			device: this.data.devices.size + this.data.recycleBin.length,
			customer: this.data.customers.size,
			testResult: this.data.testResults.size,
			bin: this.data.recycleBin.length,
		};
	}

	// ---- tokens --------------------------------------------------------------------------

	createToken(options: { environment?: Environment; scopes?: readonly string[]; expiresAt?: number | null; label?: string } = {}): { id: number; token: string } {
		const scopes = options.scopes ?? SCOPES;
		for (const s of scopes) {
			if (!(SCOPES as readonly string[]).includes(s)) throw new ApiError(400, `scopes: unknown scope "${s}"; known: ${SCOPES.join(', ')}`);
		}
		const token = randomBytes(20).toString('hex');
		const info: TokenInfo = {
			id: this.nextTokenId++,
			label: options.label ?? 'token',
			environment: options.environment ?? this.environment,
			scopes: new Set(scopes as Scope[]),
			expiresAt: options.expiresAt ?? null,
		};
		this.tokens.set(token, info);
		return { id: info.id, token };
	}

	deleteToken(id: number): boolean {
		for (const [token, info] of this.tokens) {
			if (info.id === id) return this.tokens.delete(token);
		}
		return false;
	}

	listTokens(): Array<Omit<TokenInfo, 'scopes'> & { scopes: string[] }> {
		return [...this.tokens.values()].map((t) => ({ ...t, scopes: [...t.scopes] }));
	}

	/** Whether the token was issued by this account (expired or not): which account a request is for. */
	hasToken(token: string): boolean {
		return this.tokens.has(token);
	}

	/** 401 for unknown, expired or other-environment tokens. */
	authenticate(header: string | undefined): TokenInfo {
		const m = /^Token\s+(\S+)\s*$/.exec(header ?? '');
		if (!m) throw new ApiError(401, 'Authentication credentials were not provided: send the header "Authorization: Token <access token>".');
		const info = this.tokens.get(m[1]);
		if (!info) throw new ApiError(401, 'Invalid token: it does not exist or was deleted.');
		if (info.expiresAt !== null && info.expiresAt <= this.now()) throw new ApiError(401, 'Invalid token: it has expired.');
		if (info.environment !== this.environment) {
			throw new ApiError(401, `Invalid token: it was created for the ${info.environment} account and cannot be used with the ${this.environment} account.`);
		}
		return info;
	}

	// ---- property keys -------------------------------------------------------------------

	propertyKeys(): PropertyKey[] {
		return this.extraFields ? [...this.keys, { id: 50, name: 'Certified', data_type: 'Boolean' as never, resource: 'device' }] : [...this.keys];
	}

	// ---- devices and customers -----------------------------------------------------------

	table(resource: 'device' | 'customer'): Map<number, PropRecord> {
		return resource === 'device' ? this.data.devices : this.data.customers;
	}

	/** 404 when unknown or purged; 412 when it sits in the recycle bin. */
	get(resource: 'device' | 'customer', id: number): PropRecord {
		const record = this.table(resource).get(id);
		if (record) return record;
		if (this.binEntryFor(resource, id)) {
			throw new ApiError(412, `${label(resource)} ${id} is in the recycle bin; restore it first.`);
		}
		throw new ApiError(404, `${label(resource)} ${id} does not exist.`);
	}

	binEntryFor(resource: 'device' | 'customer', id: number): BinEntry | undefined {
		for (const e of this.recycleBin.values()) if (e.resource === resource && e.item_id === id) return e;
		return undefined;
	}

	create(resource: 'device' | 'customer', input: unknown, where: string): PropRecord {
		return this.commitCreate(resource, this.prepareCreate(resource, input, where));
	}

	/** Validates one create input and builds the record (no id, not stored yet). */
	prepareCreate(resource: 'device' | 'customer', input: unknown, where: string): PropRecord {
		const body = asObject(input, where);
		const now = isoTime(this.now());
		const values = this.readProperties(resource, body.properties, `${where}.properties`, true);
		const record: PropRecord = { id: 0, created_time: now, updated_time: now, values };
		if (resource === 'device') {
			if (body.customer_id !== undefined && body.customer_id !== null) {
				const cid = Number(body.customer_id);
				if (!this.data.customers.has(cid)) throw new ApiError(400, `${where}.customer_id: customer ${String(body.customer_id)} does not exist.`);
				record.customer_id = cid;
			}
			if (values[DEVICE.designation] === undefined) throw new ApiError(400, `${where}.properties: the Designation (property ${DEVICE.designation}) is required.`);
			record.values[DEVICE.nextTest] = derivedNextTest(record.values, `${where}.properties`);
		} else if (values[CUSTOMER.name] === undefined) {
			throw new ApiError(400, `${where}.properties: the Name (property ${CUSTOMER.name}) is required.`);
		}
		return record;
	}

	/** Stores a prepared record under a new id. */
	commitCreate(resource: 'device' | 'customer', record: PropRecord): PropRecord {
		record.id = ++this.nextIds[resource];
		this.table(resource).set(record.id, record);
		return record;
	}

	/** Edits the given properties only (others keep their values). */
	edit(resource: 'device' | 'customer', input: unknown, where: string): PropRecord {
		return this.commitEdit(this.prepareEdit(resource, input, where));
	}

	/** Validates one edit input (nothing changes yet). */
	prepareEdit(resource: 'device' | 'customer', input: unknown, where: string): { record: PropRecord; values: Record<number, PropValue>; customerId?: number } {
		const body = asObject(input, where);
		const id = Number(body.id);
		if (!Number.isSafeInteger(id) || id <= 0) throw new ApiError(400, `${where}.id: the ${label(resource).toLowerCase()} id is required (a positive whole number).`);
		const record = this.get(resource, id);
		const values = this.readProperties(resource, body.properties, `${where}.properties`, false);
		if (resource === 'device') derivedNextTest({ ...record.values, ...values }, `${where}.properties`);
		let customerId: number | undefined;
		if (resource === 'device' && body.customer_id !== undefined) {
			customerId = Number(body.customer_id);
			if (!this.data.customers.has(customerId)) throw new ApiError(400, `${where}.customer_id: customer ${String(body.customer_id)} does not exist.`);
		}
		return { record, values, customerId };
	}

	commitEdit(edit: { record: PropRecord; values: Record<number, PropValue>; customerId?: number }): PropRecord {
		this.apply(edit.record, edit.values);
		if (edit.customerId !== undefined) edit.record.customer_id = edit.customerId;
		return edit.record;
	}

	multipleEdit(input: unknown): PropRecord[] {
		const body = asObject(input, 'body');
		if (!Array.isArray(body.ids) || body.ids.length === 0) throw new ApiError(400, 'ids: give the ids of the devices to edit, e.g. [1, 2].');
		const values = this.readProperties('device', body.properties, 'properties', false);
		let applied = values;
		if (body.enabled !== undefined) {
			if (!Array.isArray(body.enabled)) throw new ApiError(400, 'enabled: must be a list of property key ids, e.g. [3, 4].');
			applied = {};
			for (const k of body.enabled) {
				if (!(Number(k) in values)) throw new ApiError(400, `enabled: property ${String(k)} has no value in properties.`);
				applied[Number(k)] = values[Number(k)];
			}
		}
		const records = body.ids.map((raw: unknown) => {
			const id = Number(raw);
			if (!Number.isSafeInteger(id) || id <= 0) throw new ApiError(400, `ids: ${JSON.stringify(raw)} is not a device id.`);
			return this.get('device', id);
		});
		// Every device checked before any changes: one that cannot hold the interval leaves all as they were.
		for (const r of records) derivedNextTest({ ...r.values, ...applied }, 'properties');
		for (const r of records) this.apply(r, applied);
		return records;
	}

	delete(resource: 'device' | 'customer', id: number, direct: boolean): { id: number; recycle_bin_id: number | null } {
		const record = this.table(resource).get(id);
		if (!record) {
			const entry = this.binEntryFor(resource, id);
			if (entry && direct) {
				this.recycleBin.delete(entry.id);
				return { id, recycle_bin_id: null };
			}
			if (entry) throw new ApiError(412, `${label(resource)} ${id} is already in the recycle bin; use direct_delete to remove it completely.`);
			throw new ApiError(404, `${label(resource)} ${id} does not exist.`);
		}
		this.table(resource).delete(id);
		if (direct) return { id, recycle_bin_id: null };
		const entry: BinEntry = {
			id: ++this.nextIds.bin,
			resource,
			item_id: id,
			name: String(record.values[resource === 'device' ? DEVICE.designation : CUSTOMER.name] ?? ''),
			deleted_time: isoTime(this.now()),
			record,
		};
		this.recycleBin.set(entry.id, entry);
		return { id, recycle_bin_id: entry.id };
	}

	restore(binId: number): BinEntry {
		const entry = this.recycleBin.get(binId);
		if (!entry) throw new ApiError(404, `Recycle bin entry ${binId} does not exist (it may have been restored or purged).`);
		if (this.table(entry.resource).has(entry.item_id)) throw new ApiError(412, `${label(entry.resource)} ${entry.item_id} already exists.`);
		this.recycleBin.delete(binId);
		entry.record.updated_time = isoTime(this.now());
		this.table(entry.resource).set(entry.item_id, entry.record);
		return entry;
	}

	private apply(record: PropRecord, values: Record<number, PropValue>): void {
		Object.assign(record.values, values);
		if (DEVICE.lastTested in values || DEVICE.testInterval in values) this.deriveNextTest(record);
		record.updated_time = isoTime(this.now());
	}

	private deriveNextTest(record: PropRecord): void {
		record.values[DEVICE.nextTest] = derivedNextTest(record.values, 'properties');
	}

	/** Accepts `{ "<key id>": value }` or `[{ key_id, value }]`; checks keys and data types. */
	private readProperties(resource: 'device' | 'customer', raw: unknown, where: string, creating: boolean): Record<number, PropValue> {
		if (raw === undefined || raw === null) {
			if (creating) return {};
			throw new ApiError(400, `${where}: give the properties to change, e.g. {"${resource === 'device' ? DEVICE.department : CUSTOMER.city}": "…"}.`);
		}
		const pairs: Array<[unknown, unknown]> = Array.isArray(raw)
			? raw.map((p) => [p?.key_id, p?.value])
			: typeof raw === 'object'
				? Object.entries(raw as Record<string, unknown>)
				: (() => {
						throw new ApiError(400, `${where}: must be an object of property key id → value, or a list of {key_id, value}.`);
					})();
		const out: Record<number, PropValue> = {};
		for (const [k, v] of pairs) {
			const id = Number(k);
			const key = this.keys.find((p) => p.id === id && p.resource === resource);
			if (!key) throw new ApiError(400, `${where}: ${String(k)} is not a ${resource} property key id (see GET /data/properties/all/).`);
			if (READ_ONLY_KEYS.has(id)) throw new ApiError(400, `${where}.${id}: ${key.name} is computed by the service and cannot be written.`);
			out[id] = checkValue(key, v, `${where}.${id}`);
		}
		return out;
	}

	// ---- overdue devices -----------------------------------------------------------------

	isOverdue(record: PropRecord, today = this.today()): boolean {
		const next = record.values[DEVICE.nextTest];
		return typeof next === 'string' && next < today;
	}

	// ---- test results --------------------------------------------------------------------

	/** Simulates the test equipment uploading a result (the API has no endpoint for this). */
	syncTestResult(input: {
		device_id: number;
		status?: 'passed' | 'failed';
		test_date?: string;
		synced_time?: string;
		tester?: string;
		project_id?: number | null;
		performed?: TestResult['performed'];
		measured?: TestResult['measured'];
	}): TestResult {
		const device = this.get('device', input.device_id);
		const testDate = input.test_date ?? this.today();
		if (!isCalendarDate(testDate)) throw new ApiError(400, `test_date: "${testDate}" is not a date YYYY-MM-DD.`);
		const result: TestResult = {
			id: ++this.nextIds.testResult,
			device_id: device.id,
			customer_id: device.customer_id ?? null,
			project_id: input.project_id ?? this.data.projects[0]?.id ?? null,
			test_date: testDate,
			synced_time: input.synced_time ?? isoTime(this.now()),
			status: input.status ?? 'passed',
			tester: input.tester ?? 'A. Weber',
			test_sequence: 'VDE 0701-0702',
			...(input.performed ? { performed: input.performed } : {}),
			...(input.measured ? { measured: input.measured } : {}),
		};
		this.data.testResults.set(result.id, result);
		const last = device.values[DEVICE.lastTested];
		if (typeof last !== 'string' || testDate > last) this.apply(device, { [DEVICE.lastTested]: testDate });
		const project = this.data.projects.find((p) => p.id === result.project_id);
		if (project) project.updated_time = isoTime(this.now());
		return result;
	}

	testResult(id: number): TestResult {
		const r = this.data.testResults.get(id);
		if (!r) throw new ApiError(404, `Test result ${id} does not exist.`);
		return r;
	}

	touchProject(id: number): void {
		const p = this.data.projects.find((x) => x.id === id);
		if (!p) throw new ApiError(404, `Project ${id} does not exist.`);
		p.updated_time = isoTime(this.now());
	}

	// ---- files ---------------------------------------------------------------------------

	/** Files are the reports of test results: id = result id × 10 + 1 (PDF) or + 2 (CSV). */
	file(fileId: number): { fileId: number; resultId: number; fileName: string; mimeType: string } {
		const resultId = Math.floor(fileId / 10);
		const kind = fileId % 10;
		if ((kind !== 1 && kind !== 2) || !this.data.testResults.has(resultId)) throw new ApiError(404, `File ${fileId} does not exist.`);
		return kind === 1
			? { fileId, resultId, fileName: `test-report-${resultId}.pdf`, mimeType: 'application/pdf' }
			: { fileId, resultId, fileName: `measurements-${resultId}.csv`, mimeType: 'text/csv' };
	}

	createLink(fileId: number): { key: string; expiresAt: number } {
		this.file(fileId);
		const key = randomBytes(16).toString('hex');
		const expiresAt = this.now() + LINK_VALIDITY_MS;
		this.links.set(key, { fileId, expiresAt });
		return { key, expiresAt };
	}

	/** Whether this account issued the download link (a link carries no token). */
	hasLink(key: string): boolean {
		return this.links.has(key);
	}

	resolveLink(key: string): number {
		const link = this.links.get(key);
		if (!link) throw new ApiError(404, 'This download link does not exist.');
		if (link.expiresAt <= this.now() + this.linkFetchDelay()) {
			this.links.delete(key);
			throw new ApiError(410, 'This download link has expired (links are valid for 5 minutes); generate a new one.');
		}
		return link.fileId;
	}

	/** How late this link fetch arrives (`lateLinkFetches`), counting it. */
	private linkFetchDelay(): number {
		const late = this.lateLinkFetches;
		if (!late || late.count <= 0) return 0;
		if (--late.count <= 0) this.lateLinkFetches = undefined;
		return late.lateByMs;
	}

	random(seed: number): Random {
		return new Random(this.seed * 7919 + seed);
	}
}

function label(resource: 'device' | 'customer'): string {
	return resource === 'device' ? 'Device' : 'Customer';
}

function asObject(input: unknown, where: string): Record<string, unknown> {
	if (!input || typeof input !== 'object' || Array.isArray(input)) throw new ApiError(400, `${where}: must be a JSON object.`);
	return input as Record<string, unknown>;
}

/**
 * Next test from Last tested and the interval (months), null when either is missing. An interval
 * that puts it after 9999-12-31 is refused with a 400 naming the interval: the service writes dates
 * YYYY-MM-DD and could not hold it.
 */
function derivedNextTest(values: Record<number, PropValue>, where: string): string | null {
	const last = values[DEVICE.lastTested];
	const interval = values[DEVICE.testInterval];
	if (typeof last !== 'string' || typeof interval !== 'number' || interval <= 0) return null;
	let next: string | undefined;
	try {
		next = addMonths(last, interval);
	} catch {
		next = undefined;
	}
	if (next === undefined || !isCalendarDate(next)) {
		throw new ApiError(400, `${where}.${DEVICE.testInterval}: a test interval of ${interval} months from Last tested ${last} puts Next test after 9999-12-31; the service cannot hold that date.`);
	}
	return next;
}

function checkValue(key: PropertyKey, v: unknown, where: string): PropValue {
	if (v === null || v === '') return null;
	switch (key.data_type) {
		case 'Number':
			if (typeof v === 'number' && Number.isFinite(v)) return v;
			if (typeof v === 'string' && isDecimalNumber(v.trim())) return Number(v.trim());
			throw new ApiError(400, `${where}: ${key.name} is a Number; ${JSON.stringify(v)} is not a finite number.`);
		case 'Date':
			if (typeof v === 'string' && isCalendarDate(v)) return v;
			throw new ApiError(400, `${where}: ${key.name} is a Date; write it as YYYY-MM-DD (got ${JSON.stringify(v)}).`);
		default: {
			const text = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
			if (text === undefined) throw new ApiError(400, `${where}: ${key.name} is Text; got ${JSON.stringify(v)}.`);
			// ASSUMED: a property with a fixed list takes exactly one of its values (case and spaces
			// as listed) and refuses anything else with a 400, as the service's other checks do.
			if (key.choices && !key.choices.includes(text)) {
				throw new ApiError(400, `${where}: ${key.name} takes one of ${key.choices.map((c) => JSON.stringify(c)).join(', ')}; got ${JSON.stringify(text)}.`);
			}
			return text;
		}
	}
}
