import {
	ENDPOINTS,
	FIELD_RESOURCES,
	PROPERTY_ROLES,
	ServiceError,
	MISSING_PLACES,
	TEXT_CASES,
	encodeFilter,
	pagingParams,
	profileDifferences,
	queryString,
	resolveProfile,
	smallerPageSize,
	sortRecords,
	type OperationId,
	type PagingStyle,
	type PropertyRole,
	type ServiceClient,
	type ServiceProfile,
	type ServiceProfileInput,
} from '../client';
import { ROLE_HINTS, recordProperties, roleInRecords, suggestRoles, type RecordSource, type SeenProperty } from './roles';

/**
 * `npm run doctor`: every assumption of a service profile checked against an account, read-only
 * (GET and OPTIONS only, paced by the client at 5 requests per second). What the answers show
 * (field and property names, paging style and parameters, the largest page, answer keys, the
 * shape of test steps) goes into a suggested profile; what they cannot show (a path that answers
 * 404) is named by the profile key to set, and the next run checks what lies behind it.
 */

export type CheckStatus = 'holds' | 'differs' | 'unknown';

export interface Check {
	id: string;
	status: CheckStatus;
	/** What was seen: statuses, keys, names (never a token). */
	evidence: string;
	/** The profile key that holds the assumption. */
	profileKey: string;
}

export interface DoctorResult {
	checks: Check[];
	/** The checked profile with what the answers showed, as the keys that differ from the defaults. */
	suggestedProfile: ServiceProfileInput;
}

export interface DoctorDeps {
	client: ServiceClient;
	/** One OPTIONS request (paced like the client's): status and Allow header. */
	options(url: string): Promise<{ status: number; allow?: string }>;
}

type Json = Record<string, unknown>;
interface Answer {
	status: number;
	body?: unknown;
	description?: string;
}

const LISTS = (Object.keys(ENDPOINTS) as OperationId[]).filter((op) => ENDPOINTS[op].kind === 'list');
const WRITES = (Object.keys(ENDPOINTS) as OperationId[]).filter((op) => ENDPOINTS[op].kind === 'write');
const DAY = /^\d{4}-\d{2}-\d{2}/;

/** Paging parameter pairs tried when the profile's do not work: [size, position]. */
const PAGING_GUESSES: Array<{ style: PagingStyle; size: string; position: string }> = [
	{ style: 'limitOffset', size: 'limit', position: 'offset' },
	{ style: 'pageNumber', size: 'page_size', position: 'page' },
	{ style: 'pageNumber', size: 'per_page', position: 'page' },
	{ style: 'pageNumber', size: 'size', position: 'page' },
	{ style: 'pageNumber', size: 'limit', position: 'page' },
	{ style: 'limitOffset', size: 'limit', position: 'start' },
];

const show = (v: unknown, max = 80): string => {
	const s = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
	return s.length > max ? `${s.slice(0, max)}…` : s;
};
const keysOf = (v: unknown): string[] => (v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : []);
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

function dataTypeOf(v: unknown): 'Number' | 'Date' | 'Text' | undefined {
	if (typeof v === 'number') return 'Number';
	if (typeof v === 'string') return DAY.test(v) ? 'Date' : 'Text';
	return undefined;
}

export async function runDoctor(deps: DoctorDeps, profile: ServiceProfile): Promise<DoctorResult> {
	const { client } = deps;
	const checks: Check[] = [];
	const add = (id: string, status: CheckStatus, evidence: string, profileKey: string) => checks.push({ id, status, evidence, profileKey });
	// What the answers show, applied to a copy of the profile (JSON: the profile is plain data).
	const s = JSON.parse(JSON.stringify(profile)) as ServiceProfile;
	const url = (path: string, params: Array<[string, string]> = []) => `${client.base.apiRoot}${path}${queryString(params)}`;
	const get = async (path: string, params: Array<[string, string]> = []): Promise<Answer> => {
		try {
			return { status: 200, body: await client.sendJson('GET', url(path, params)) };
		} catch (error) {
			if (error instanceof ServiceError && error.status !== undefined) return { status: error.status, description: error.description ?? error.message };
			throw error;
		}
	};

	// ---- 1. list paths (GET without parameters: the service's default page) -----------------
	const lists = new Map<OperationId, Answer>();
	for (const op of LISTS) {
		const path = profile.operations[op].path;
		const a = await get(path);
		lists.set(op, a);
		if (a.status === 200) add(`path ${op}`, 'holds', `GET ${path}: HTTP 200`, `operations.${op}.path`);
		else if (a.status === 404) add(`path ${op}`, 'differs', `GET ${path}: HTTP 404, no such path; set the path of this list`, `operations.${op}.path`);
		else if (a.status === 413) add(`path ${op}`, 'unknown', `GET ${path}: HTTP 413, the token lacks the scope of this list (a missing scope, not a wrong path)`, `operations.${op}.path`);
		else if (a.status === 400) add(`path ${op}`, 'holds', `GET ${path}: HTTP 400 (the path answers): ${show(a.description)}`, `operations.${op}.path`);
		else add(`path ${op}`, 'unknown', `GET ${path}: HTTP ${a.status} ${show(a.description ?? '')}`, `operations.${op}.path`);
	}
	const answered = LISTS.filter((op) => lists.get(op)?.status === 200);

	// ---- 2. the answer's keys ---------------------------------------------------------------
	const itemsOf = (body: unknown): unknown[] | undefined => (Array.isArray(body) ? body : s.paging.itemsKey !== null && isObject(body) && Array.isArray(body[s.paging.itemsKey]) ? (body[s.paging.itemsKey] as unknown[]) : undefined);
	const sample = answered.map((op) => lists.get(op)!.body).find((b) => Array.isArray(b) || isObject(b));
	if (sample === undefined) {
		for (const k of ['itemsKey', 'countKey', 'nextKey']) add(`answer ${k}`, 'unknown', 'no list answered', `paging.${k}`);
	} else if (Array.isArray(sample)) {
		const bare = profile.paging.itemsKey === null;
		add('answer itemsKey', bare ? 'holds' : 'differs', 'the lists answer a bare JSON array', 'paging.itemsKey');
		s.paging.itemsKey = null;
		s.paging.countKey = null;
		s.paging.nextKey = null;
	} else {
		const keys = keysOf(sample).join(', ');
		const arrays = keysOf(sample).filter((k) => Array.isArray(sample[k]));
		const counts = keysOf(sample).filter((k) => Number.isSafeInteger(sample[k]) && (sample[k] as number) >= 0);
		const links = keysOf(sample).filter((k) => (typeof sample[k] === 'string' && /^https?:/.test(sample[k] as string)) || (sample[k] === null && /next/i.test(k)));
		const keyCheck = (k: 'itemsKey' | 'countKey' | 'nextKey', candidates: string[], prefer: RegExp) => {
			const wanted = profile.paging[k];
			if (wanted !== null && candidates.includes(wanted)) return add(`answer ${k}`, 'holds', `"${wanted}" in the answer (keys: ${keys})`, `paging.${k}`);
			const found = candidates.length === 1 ? candidates[0] : candidates.find((c) => prefer.test(c));
			if (found !== undefined) s.paging[k] = found;
			add(`answer ${k}`, 'differs', `no "${wanted}" in the answer (keys: ${keys})${found ? `; "${found}" holds it` : ''}`, `paging.${k}`);
		};
		keyCheck('itemsKey', arrays, /results|items|data/i);
		keyCheck('countKey', counts, /count|total/i);
		keyCheck('nextKey', links, /next/i);
	}

	// ---- 3. paging: style and parameter names, then the largest page -------------------------
	const pagingList = answered.find((op) => (itemsOf(lists.get(op)!.body)?.length ?? 0) >= 8);
	const ids = (body: unknown) => (itemsOf(body) ?? []).map((i) => (isObject(i) ? i.id : undefined));
	if (pagingList === undefined) {
		add('paging', 'unknown', 'no list answered with 8 items or more', 'paging.style');
		add('largest page', 'unknown', 'no list answered', 'paging.maxPageSize');
	} else {
		const path = profile.operations[pagingList].path;
		const first = ids(lists.get(pagingList)!.body);
		const own = profile.paging.style === 'limitOffset' ? { style: 'limitOffset' as const, size: profile.paging.limitParam, position: profile.paging.offsetParam } : { style: 'pageNumber' as const, size: profile.paging.pageSizeParam, position: profile.paging.pageParam };
		// Items 5 and 6 of the default page: offset 4, or page 3 of two (page numbers from 1; from 0 it
		// holds items 7 and 8). Size and position differ, so a swapped pair of names cannot match.
		const position = (style: PagingStyle) => (style === 'limitOffset' ? '4' : '3');
		const probe = async (g: { style: PagingStyle; size: string; position: string }) => {
			const a = await get(path, [[g.size, '2'], [g.position, position(g.style)]]);
			const got = JSON.stringify(ids(a.body));
			if (got === JSON.stringify(first.slice(4, 6))) return { a, firstPage: g.style === 'limitOffset' ? profile.paging.firstPage : 1 };
			if (g.style === 'pageNumber' && got === JSON.stringify(first.slice(6, 8))) return { a, firstPage: 0 };
			return { a, firstPage: undefined };
		};
		const mine = await probe(own);
		const ownText = `${own.size}=2&${own.position}=${position(own.style)}`;
		if (mine.firstPage !== undefined && (own.style === 'limitOffset' || mine.firstPage === profile.paging.firstPage)) {
			add('paging', 'holds', `GET ${path}?${ownText}: items 5 and 6, as asked`, 'paging.style');
		} else {
			let found: { style: PagingStyle; size: string; position: string; firstPage: number } | undefined;
			if (mine.firstPage !== undefined) found = { ...own, firstPage: mine.firstPage };
			// The names in a `next` link come first: its numeric parameters, each as size or position.
			const link = answered.map((op) => lists.get(op)!.body).map((b) => (isObject(b) && s.paging.nextKey !== null ? b[s.paging.nextKey] : undefined)).find((l): l is string => typeof l === 'string' && URL.canParse(l));
			const numeric = link ? [...new URL(link).searchParams].filter(([, v]) => /^\d+$/.test(v)).map(([k]) => k) : [];
			const fromLink = numeric.flatMap((size) => numeric.filter((p) => p !== size).flatMap((position) => (['pageNumber', 'limitOffset'] as const).map((style) => ({ style, size, position }))));
			for (const g of [...fromLink, ...PAGING_GUESSES]) {
				if (found) break;
				if (g.size === own.size && g.position === own.position) continue;
				const r = await probe(g);
				if (r.firstPage !== undefined) found = { ...g, firstPage: r.firstPage };
			}
			const seen = mine.a.status === 200 ? 'other items than the page asked for' : `HTTP ${mine.a.status} ${show(mine.a.description ?? '')}`;
			if (found) {
				s.paging.style = found.style;
				s.paging.firstPage = found.firstPage;
				if (found.style === 'limitOffset') [s.paging.limitParam, s.paging.offsetParam] = [found.size, found.position];
				else [s.paging.pageSizeParam, s.paging.pageParam] = [found.size, found.position];
			}
			add(
				'paging',
				'differs',
				`GET ${path}?${ownText}: ${seen}${found ? `; ${found.size}/${found.position} page it (${found.style}${found.style === 'pageNumber' ? `, first page ${found.firstPage}` : ''})` : '; no known paging parameters worked'}`,
				'paging.style',
			);
		}
		// The largest page: asked for at once; a 400 naming the size parameter names the limit.
		const sizeParam = s.paging.style === 'limitOffset' ? s.paging.limitParam : s.paging.pageSizeParam;
		const positionParams: Array<[string, string]> = s.paging.style === 'limitOffset' ? [] : [[s.paging.pageParam, String(s.paging.firstPage)]];
		const asked = profile.paging.maxPageSize;
		const big = await get(path, [[sizeParam, String(asked)], ...positionParams]);
		if (big.status === 200) add('largest page', 'holds', `GET ${path}?${sizeParam}=${asked}: HTTP 200, ${itemsOf(big.body)?.length ?? '?'} items`, 'paging.maxPageSize');
		else if (big.status === 400 && new RegExp(`\\b${sizeParam}\\b`, 'i').test(big.description ?? '')) {
			const largest = smallerPageSize(new ServiceError({ kind: 'badRequest', status: 400, message: big.description ?? '', description: big.description }), asked);
			s.paging.maxPageSize = largest;
			s.paging.defaultPageSize = Math.min(s.paging.defaultPageSize, largest);
			add('largest page', 'differs', `GET ${path}?${sizeParam}=${asked}: HTTP 400 ${show(big.description)}; the largest page is ${largest}`, 'paging.maxPageSize');
		} else add('largest page', 'unknown', `GET ${path}?${sizeParam}=${asked}: HTTP ${big.status} ${show(big.description ?? '')}`, 'paging.maxPageSize');
	}

	// ---- 4. field names: seen in records, accepted in ordering and filters ---------------------
	for (const resource of FIELD_RESOURCES) {
		const op = `${resource}.list` as OperationId;
		const records = (itemsOf(lists.get(op)?.body) ?? []).filter(isObject);
		if (records.length === 0) {
			add(`fields ${resource}`, 'unknown', lists.get(op)?.status === 200 ? 'the list is empty' : 'the list did not answer', `fields.${resource}`);
			continue;
		}
		const seen = new Map<string, unknown>();
		for (const r of records) for (const [k, v] of Object.entries(r)) if (!seen.has(k) || seen.get(k) === null) seen.set(k, v);
		const fields = s.fields[resource];
		const wire = new Set(Object.values(fields).map((f) => f.name));
		const spare = [...seen.keys()].filter((k) => !wire.has(k));
		let missing = 0;
		for (const [canonical, field] of Object.entries(fields)) {
			if (seen.has(field.name)) continue;
			missing++;
			const candidates = spare.filter((k) => dataTypeOf(seen.get(k)) === field.dataType || seen.get(k) === null);
			const found = candidates.length === 1 ? candidates[0] : undefined;
			if (found !== undefined) {
				fields[canonical] = { ...field, name: found };
				spare.splice(spare.indexOf(found), 1);
			}
			add(`field ${resource}.${canonical}`, 'differs', `no "${field.name}" in ${records.length} records (keys: ${[...seen.keys()].join(', ')})${found ? `; "${found}" holds it` : ''}`, `fields.${resource}.${canonical}.name`);
		}
		if (missing === 0) add(`fields ${resource}`, 'holds', `all ${wire.size} fields in ${records.length} records`, `fields.${resource}`);
		// The fields (as suggested) in ordering and in filters that keep every record: all in one
		// request, and one by one only when it is refused (the answer's description names the field).
		const filterOf = (field: { name: string; dataType: string }) =>
			encodeFilter({ key: field.name, conditions: [field.dataType === 'Date' ? { keyword: 'olderOrSame', value: '9999-12-31' } : { keyword: 'notEquals', value: field.dataType === 'Number' ? '-987654321' : 'doctor-check' }] });
		const all = Object.values(fields);
		const path = s.operations[op].path;
		const together = await get(path, [['ordering', `-${all[all.length - 1].name}`], ...all.map(filterOf)]);
		const refused: string[] = [];
		if (together.status !== 200) {
			for (const field of all) {
				const a = await get(path, [['ordering', `-${field.name}`], filterOf(field)]);
				if (a.status !== 200) refused.push(`${field.name} (HTTP ${a.status} ${show(a.description ?? '', 60)})`);
			}
		}
		add(`filters ${resource}`, refused.length === 0 ? 'holds' : 'differs', refused.length === 0 ? `ordering and a filter accepted for all ${wire.size} fields` : `refused: ${refused.join('; ')}`, `fields.${resource}`);
	}

	// ---- 5. property roles: in the property-key list and in records ---------------------------
	const keyList = lists.get('propertyKey.list');
	const keyRecords = (itemsOf(keyList?.body) ?? []).filter(isObject);
	const keyField = (k: string) => s.fields.propertyKey[k].name;
	const keys = keyRecords.map((k) => ({ id: k[keyField('id')], name: String(k[keyField('name')] ?? ''), dataType: k[keyField('data_type')], resource: k[keyField('resource')] }));
	const keyListRead = keyList?.status === 200 && keys.length > 0;
	// The first pages already read; overdue records are devices.
	const sources: RecordSource[] = (
		[
			['device.list', 'device list', 'device'],
			['overdueDevice.list', 'overdue list', 'device'],
			['customer.list', 'customer list', 'customer'],
		] as const
	).map(([op, label, resource]) => ({ label, resource, answered: lists.get(op)?.status === 200, records: recordProperties(itemsOf(lists.get(op)?.body) ?? []) }));
	const seenProperties: SeenProperty[] = [
		...keys.map((k) => ({ name: k.name, keyId: k.id, dataType: k.dataType, resource: k.resource })),
		...sources.flatMap((src) => src.records.flat().map((p) => ({ ...p, resource: src.resource }))),
	];
	const inKeyList = (role: PropertyRole) => {
		const r = profile.properties[role];
		const names = r.names.map((n) => n.trim().toLowerCase());
		return keys.find((k) => (r.keyId !== null && k.id === r.keyId) || names.includes(k.name.trim().toLowerCase()));
	};
	const inRecords = Object.fromEntries(PROPERTY_ROLES.map((role) => [role, roleInRecords(role, sources, keyListRead ? inKeyList(role) !== undefined : undefined, profile)])) as Record<PropertyRole, ReturnType<typeof roleInRecords>>;
	const missing = PROPERTY_ROLES.filter((role) => (keyListRead && !inKeyList(role)) || inRecords[role].status === 'differs');
	const roleSuggestions = suggestRoles(missing, seenProperties, profile);
	for (const [role, name] of Object.entries(roleSuggestions) as Array<[PropertyRole, string]>) s.properties[role] = { names: [name], keyId: null };
	const looksLike = (role: PropertyRole) => (roleSuggestions[role] ? `; "${roleSuggestions[role]}" looks like it` : '');
	for (const role of PROPERTY_ROLES) {
		const r = profile.properties[role];
		const hint = ROLE_HINTS[role];
		const hit = inKeyList(role);
		if (!keyListRead) add(`property ${role}`, 'unknown', 'the property-key list did not answer', `properties.${role}.names`);
		else if (hit) add(`property ${role}`, 'holds', `"${hit.name}" (key ${show(hit.id)}, ${show(hit.dataType)})`, `properties.${role}.names`);
		else {
			const has = keys.filter((k) => k.resource === undefined || k.resource === hint.resource).map((k) => `"${k.name}"`);
			add(`property ${role}`, 'differs', `no ${hint.resource} property named ${r.names.map((n) => `"${n}"`).join(' or ')} (the account has ${has.join(', ')})${looksLike(role)}`, `properties.${role}.names`);
		}
		const rec = inRecords[role];
		add(`property ${role} in records`, rec.status, `${rec.evidence}${rec.status === 'differs' ? looksLike(role) : ''}`, `properties.${role}.names`);
	}

	// ---- 6. the overdue list's due date and days overdue ------------------------------------
	const overdue = (itemsOf(lists.get('overdueDevice.list')?.body) ?? []).filter(isObject);
	const device = (itemsOf(lists.get('device.list')?.body) ?? []).find(isObject);
	for (const [k, type] of [['nextTestDate', 'Date'], ['daysOverdue', 'Number']] as const) {
		if (overdue.length === 0) {
			add(`overdue ${k}`, 'unknown', lists.get('overdueDevice.list')?.status === 200 ? 'the overdue list is empty' : 'the overdue list did not answer', `overdue.${k}`);
			continue;
		}
		const name = profile.overdue[k];
		if (name in overdue[0]) {
			add(`overdue ${k}`, 'holds', `"${name}" in overdue records`, `overdue.${k}`);
			continue;
		}
		const own = new Set([...Object.values(s.overdue), ...keysOf(device)]);
		const candidates = keysOf(overdue[0]).filter((c) => !own.has(c) && !/(^|_)id$/.test(c) && (type === 'Number' ? Number.isSafeInteger(overdue[0][c]) : typeof overdue[0][c] === 'string' && DAY.test(overdue[0][c] as string)));
		if (candidates.length === 1) s.overdue[k] = candidates[0];
		add(`overdue ${k}`, 'differs', `no "${name}" in overdue records (keys: ${keysOf(overdue[0]).join(', ')})${candidates.length === 1 ? `; "${candidates[0]}" holds it` : ''}`, `overdue.${k}`);
	}

	// ---- 6b. the order of a sorted list (a sort over several pages is done on this side) ------
	// The first page sorted by the designation and by the next test date, both ways: the orders of
	// the profile that keep each page as the service sorted it.
	const sortKeys = (['designation', 'nextTestDate'] as const).map((role) => inKeyList(role)?.id).filter((id): id is number | string => typeof id === 'number' || typeof id === 'string');
	if (lists.get('device.list')?.status !== 200 || sortKeys.length === 0) {
		add('sorted list order', 'unknown', lists.get('device.list')?.status === 200 ? 'no designation or next test property in the key list to sort by' : 'the device list did not answer', 'ordering');
	} else {
		const orders = TEXT_CASES.flatMap((textCase) => MISSING_PLACES.map((missing) => ({ textCase, missing })));
		let fitting = orders;
		const seen: string[] = [];
		for (const key of sortKeys) {
			for (const direction of ['asc', 'desc'] as const) {
				const a = await get(s.operations['device.list'].path, [['ordering', `${direction === 'desc' ? '-' : ''}${String(key)}`], ...pagingParams({ limit: s.paging.defaultPageSize }, s)]);
				const page = (itemsOf(a.body) ?? []).filter(isObject);
				if (a.status !== 200) continue;
				seen.push(`${direction === 'desc' ? '-' : ''}${String(key)}`);
				const ids = page.map((r) => r.id);
				fitting = fitting.filter((order) => {
					const here = sortRecords(page, { key, direction }, 'device', { ...s, ordering: order });
					return here.every((r, n) => r.id === ids[n]);
				});
			}
		}
		const own = fitting.find((o) => o.textCase === profile.ordering.textCase && o.missing === profile.ordering.missing);
		const shown = (o: { textCase: string; missing: string }) => `text case ${o.textCase === 'ignore' ? 'ignored' : 'respected'}, missing values ${o.missing}`;
		if (seen.length === 0) add('sorted list order', 'unknown', 'the device list refused every ordering asked', 'ordering');
		else if (own && fitting.length === orders.length) add('sorted list order', 'unknown', `the first pages sorted by ${seen.join(', ')} fit every order (no case or missing value tells them apart)`, 'ordering');
		else if (own) add('sorted list order', 'holds', `the first pages sorted by ${seen.join(', ')} are in the profile's order (${shown(own)})`, 'ordering');
		else {
			// Keep what the profile says where the pages allow it.
			const suggested = fitting.find((o) => o.textCase === profile.ordering.textCase) ?? fitting[0];
			if (suggested) s.ordering = { ...suggested };
			add('sorted list order', 'differs', `the first pages sorted by ${seen.join(', ')} are not in the profile's order (${shown(profile.ordering)})${suggested ? `; they fit ${shown(suggested)}` : ', nor in any order the profile can describe'}`, 'ordering');
		}
	}

	// ---- 7. detail paths, and the performed steps of a detailed test result ------------------
	const firstId = (op: OperationId) => {
		const item = (itemsOf(lists.get(op)?.body) ?? []).find(isObject);
		return item && (typeof item.id === 'number' || typeof item.id === 'string') ? String(item.id) : undefined;
	};
	const details: Partial<Record<OperationId, Answer>> = {};
	// A device's id from the device list, else from the overdue list (its records are devices).
	for (const [op, sources] of [['device.get', ['device.list', 'overdueDevice.list']], ['testResult.get', ['testResult.list']]] as const) {
		const from = sources.join(' or ');
		const id = sources.map(firstId).find((i) => i !== undefined);
		const path = profile.operations[op].path;
		if (id === undefined) {
			add(`path ${op}`, 'unknown', `no id to ask for (${from} did not answer)`, `operations.${op}.path`);
			continue;
		}
		const a = await get(path.replace('{id}', encodeURIComponent(id)));
		details[op] = a;
		const status: CheckStatus = a.status === 200 ? 'holds' : a.status === 404 ? 'differs' : 'unknown';
		add(`path ${op}`, status, `GET ${path.replace('{id}', id)}: HTTP ${a.status}${a.status === 404 ? ', no such path' : a.status === 413 ? ', the token lacks the scope' : ''}`, `operations.${op}.path`);
	}
	checkSteps(details['testResult.get'], profile, s, add);

	// ---- 8. write paths, by OPTIONS where the service answers it ---------------------------
	const readable = answered[0];
	const optionsWork = readable !== undefined && (await deps.options(url(profile.operations[readable].path))).status < 300;
	for (const op of WRITES) {
		const { method, path } = profile.operations[op];
		if (!optionsWork) {
			add(`path ${op}`, 'unknown', 'the service does not answer OPTIONS (write paths are never tried: doctor is read-only)', `operations.${op}.path`);
			continue;
		}
		const o = await deps.options(url(path.replace('{id}', firstId('device.list') ?? firstId('overdueDevice.list') ?? '1')));
		const allow = (o.allow ?? '').toUpperCase().split(/[\s,]+/).filter(Boolean);
		if (o.status === 404) add(`path ${op}`, 'differs', `OPTIONS ${path}: HTTP 404, no such path`, `operations.${op}.path`);
		else if (o.status < 300 && allow.includes(method)) add(`path ${op}`, 'holds', `OPTIONS ${path}: Allow ${allow.join(', ')}`, `operations.${op}.path`);
		else if (o.status < 300) add(`path ${op}`, 'differs', `OPTIONS ${path}: Allow ${allow.join(', ') || '(none)'}, not ${method}`, `operations.${op}.method`);
		else add(`path ${op}`, 'unknown', `OPTIONS ${path}: HTTP ${o.status}`, `operations.${op}.path`);
	}

	// The suggestion must itself be a profile every face accepts.
	const suggested = resolveProfile(profileDifferences(s));
	return { checks, suggestedProfile: profileDifferences(suggested) };
}

/** The detailed result's steps, measurements and device against the profile's `testSteps`. */
function checkSteps(answer: Answer | undefined, profile: ServiceProfile, s: ServiceProfile, add: (id: string, status: CheckStatus, evidence: string, key: string) => void): void {
	const detail = answer?.status === 200 && isObject(answer.body) ? answer.body : undefined;
	if (!detail) return void add('test steps', 'unknown', 'no detailed test result answered', 'testSteps');
	const t = profile.testSteps;
	const steps = detail[t.steps];
	const stepList = Array.isArray(steps) ? steps.filter(isObject) : [];
	const measurement = stepList.flatMap((st) => (Array.isArray(st[t.measurements]) ? (st[t.measurements] as unknown[]).filter(isObject) : []))[0];
	const deviceOf = isObject(detail[t.device]) ? (detail[t.device] as Json) : undefined;
	const groups: Array<{ where: string; record: Json | undefined; names: Record<string, string>; set: (k: string, v: string) => void; hints: Record<string, RegExp> }> = [
		{ where: 'testSteps', record: detail, names: { steps: t.steps, device: t.device }, set: (k, v) => ((s.testSteps as unknown as Json)[k] = v), hints: { steps: /step/i, device: /device/i } },
		{ where: 'testSteps', record: stepList[0], names: { step: t.step, name: t.name, status: t.status, measurements: t.measurements }, set: (k, v) => ((s.testSteps as unknown as Json)[k] = v), hints: { step: /step|no|number|index/i, name: /name|title/i, status: /status|result/i, measurements: /measure|values|readings/i } },
		{ where: 'testSteps.measurement', record: measurement, names: { ...t.measurement }, set: (k, v) => ((s.testSteps.measurement as unknown as Json)[k] = v), hints: { name: /name/i, value: /value|reading|measured/i, unit: /unit/i, lowLimit: /low|min/i, highLimit: /high|max/i, passed: /pass|ok|result/i } },
		{ where: 'testSteps.deviceFields', record: deviceOf, names: { ...t.deviceFields }, set: (k, v) => ((s.testSteps.deviceFields as unknown as Json)[k] = v), hints: { designation: /designation|name/i, idBarcode: /barcode|tag|asset/i } },
	];
	let differs = 0;
	for (const g of groups) {
		if (!g.record) {
			differs++;
			add(`test steps ${g.where}`, 'differs', `${g.where}: not in the detailed result (keys: ${keysOf(detail).join(', ')})`, g.where);
			continue;
		}
		const spare = keysOf(g.record).filter((k) => !Object.values(g.names).includes(k));
		for (const [k, name] of Object.entries(g.names)) {
			if (name in g.record) continue;
			differs++;
			const candidates = spare.filter((c) => g.hints[k]?.test(c));
			const found = candidates.length === 1 ? candidates[0] : undefined;
			if (found) g.set(k, found);
			add(`test steps ${g.where}.${k}`, 'differs', `no "${name}" (keys: ${keysOf(g.record).join(', ')})${found ? `; "${found}" holds it` : ''}`, `${g.where}.${k}`);
		}
	}
	if (differs === 0) add('test steps', 'holds', `steps, measurements and device as the profile says (${stepList.length} steps)`, 'testSteps');
}

/** Every check holds or is unknown: nothing the answers showed differs from the profile. */
export const nothingDiffers = (result: DoctorResult): boolean => result.checks.every((c) => c.status !== 'differs');
