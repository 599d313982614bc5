import type { Resource } from './catalogue';
import { DEFAULT_PROFILE, PROPERTY_ROLES, type FieldResource, type PropertyRole, type ServiceProfile } from './profile';

/**
 * Translating records between the service's names (the profile's) and the canonical names the
 * code speaks. The client reads with `toCanonical`, the sandbox serves with `toWire`; with the
 * default profile both hand the record back untouched (no copy: the scans stay as fast).
 */

type Json = Record<string, unknown>;
/** canonical → wire, only the names that differ. */
type Renames = ReadonlyArray<readonly [string, string]>;

interface Translation {
	/** Per list resource, the top-level renames of its records. */
	records: Partial<Record<Resource, Renames>>;
	steps: Renames;
	measurement: Renames;
	deviceFields: Renames;
	/** The detailed result's top-level keys (`steps`, `device`). */
	detail: Renames;
}

const cache = new WeakMap<ServiceProfile, Translation>();

function renames(pairs: Array<[string, string]>): Renames {
	return pairs.filter(([canonical, wire]) => canonical !== wire);
}

function translationOf(profile: ServiceProfile): Translation {
	let t = cache.get(profile);
	if (t) return t;
	const records: Partial<Record<Resource, Renames>> = {};
	for (const [resource, fields] of Object.entries(profile.fields) as Array<[FieldResource, ServiceProfile['fields'][FieldResource]]>) {
		const r = renames(Object.entries(fields).map(([canonical, f]) => [canonical, f.name]));
		if (r.length > 0) records[resource] = r;
	}
	const overdue = renames([
		['next_test_date', profile.overdue.nextTestDate],
		['days_overdue', profile.overdue.daysOverdue],
	]);
	if (overdue.length > 0) records.overdueDevice = overdue;
	const s = profile.testSteps;
	t = {
		records,
		steps: renames([
			['step', s.step],
			['name', s.name],
			['status', s.status],
			['measurements', s.measurements],
		]),
		measurement: renames([
			['name', s.measurement.name],
			['value', s.measurement.value],
			['unit', s.measurement.unit],
			['low_limit', s.measurement.lowLimit],
			['high_limit', s.measurement.highLimit],
			['passed', s.measurement.passed],
		]),
		deviceFields: renames([
			['designation', s.deviceFields.designation],
			['id_barcode', s.deviceFields.idBarcode],
		]),
		detail: renames([
			['steps', s.steps],
			['device', s.device],
		]),
	};
	cache.set(profile, t);
	return t;
}

/** The renames of one direction: from → to, and the set of keys renamed away. */
interface Direction {
	from: string[];
	to: string[];
	sources: ReadonlySet<string>;
}

const directions = new WeakMap<Renames, { toWire: Direction; toCanonical: Direction }>();

/** Worked out once per list of renames (a scan renames every record of every page the same way). */
function directionOf(pairs: Renames, toWire: boolean): Direction {
	let both = directions.get(pairs);
	if (!both) {
		const one = (from: string[], to: string[]): Direction => ({ from, to, sources: new Set(from) });
		both = { toWire: one(pairs.map(([c]) => c), pairs.map(([, w]) => w)), toCanonical: one(pairs.map(([, w]) => w), pairs.map(([c]) => c)) };
		directions.set(pairs, both);
	}
	return toWire ? both.toWire : both.toCanonical;
}

/** `record` with each key renamed from one side to the other; a renamed key wins over a kept one. */
function rename(record: unknown, pairs: Renames, toWire: boolean): unknown {
	if (pairs.length === 0 || !record || typeof record !== 'object' || Array.isArray(record)) return record;
	const r = record as Json;
	const { from, to, sources } = directionOf(pairs, toWire);
	const out: Json = {};
	// Own enumerable keys in order, as Object.entries lists them, without an array per key.
	for (const key in r) if (Object.hasOwn(r, key) && !sources.has(key)) out[key] = r[key];
	for (let i = 0; i < from.length; i++) if (from[i] in r) out[to[i]] = r[from[i]];
	return out;
}

/** A list's record as the code reads it. */
export function toCanonical(profile: ServiceProfile, resource: Resource, record: unknown): unknown {
	const pairs = translationOf(profile).records[resource];
	return pairs ? rename(record, pairs, false) : record;
}

/** A list's record as the service of `profile` writes it. */
export function toWire(profile: ServiceProfile, resource: Resource, record: unknown): unknown {
	const pairs = translationOf(profile).records[resource];
	return pairs ? rename(record, pairs, true) : record;
}

/** Whether the records of `resource` need translating at all under `profile`. */
export function translates(profile: ServiceProfile, resource: Resource): boolean {
	return translationOf(profile).records[resource] !== undefined;
}

/** The detailed test result (performed steps, measurements, device) from one side to the other. */
export function testDetail(profile: ServiceProfile, detail: unknown, toWire: boolean): unknown {
	const t = translationOf(profile);
	if (t.detail.length + t.steps.length + t.measurement.length + t.deviceFields.length === 0) return detail;
	if (!detail || typeof detail !== 'object' || Array.isArray(detail)) return detail;
	const top = rename(detail, t.detail, toWire) as Json;
	const stepsKey = toWire ? profile.testSteps.steps : 'steps';
	const measurementsKey = toWire ? profile.testSteps.measurements : 'measurements';
	const deviceKey = toWire ? profile.testSteps.device : 'device';
	if (Array.isArray(top[stepsKey])) {
		top[stepsKey] = (top[stepsKey] as unknown[]).map((raw) => {
			const step = rename(raw, t.steps, toWire) as Json;
			if (step && typeof step === 'object' && Array.isArray(step[measurementsKey])) {
				step[measurementsKey] = (step[measurementsKey] as unknown[]).map((m) => rename(m, t.measurement, toWire));
			}
			return step;
		});
	}
	if (top[deviceKey] && typeof top[deviceKey] === 'object') top[deviceKey] = rename(top[deviceKey], t.deviceFields, toWire);
	return top;
}

/** Lower-case property name → its role, and key id → its role, for one profile. */
export interface RoleIndex {
	byName: ReadonlyMap<string, { role: PropertyRole; rank: number }>;
	byKeyId: ReadonlyMap<number, PropertyRole>;
}

const roleCache = new WeakMap<ServiceProfile, RoleIndex>();

export function roleIndex(profile: ServiceProfile = DEFAULT_PROFILE): RoleIndex {
	let index = roleCache.get(profile);
	if (index) return index;
	const byName = new Map<string, { role: PropertyRole; rank: number }>();
	const byKeyId = new Map<number, PropertyRole>();
	for (const role of PROPERTY_ROLES) {
		profile.properties[role].names.forEach((name, rank) => byName.set(name.trim().toLowerCase(), { role, rank }));
		const keyId = profile.properties[role].keyId;
		if (keyId !== null) byKeyId.set(keyId, role);
	}
	index = { byName, byKeyId };
	roleCache.set(profile, index);
	return index;
}

/** The lower-case property names of one role (for matching names in the property-key list). */
export function roleNames(role: PropertyRole, profile: ServiceProfile = DEFAULT_PROFILE): string[] {
	return profile.properties[role].names.map((n) => n.trim().toLowerCase());
}

/** Whether a property (by name and key id) holds `role`. */
export function holdsRole(role: PropertyRole, name: unknown, keyId: unknown, profile: ServiceProfile = DEFAULT_PROFILE): boolean {
	const index = roleIndex(profile);
	if (typeof keyId === 'number' && index.byKeyId.get(keyId) === role) return true;
	if (typeof keyId === 'string' && /^\d+$/.test(keyId) && index.byKeyId.get(Number(keyId)) === role) return true;
	return typeof name === 'string' && index.byName.get(name.trim().toLowerCase())?.role === role;
}
