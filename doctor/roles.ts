import { PROPERTY_ROLES, forEachProperty, holdsRole, type PropertyRole, type ServiceProfile } from '../client';

/**
 * The doctor's property roles in records: which records carry a property the profile names for a
 * role, and, for a role whose names the account does not use, the one property that plausibly
 * holds it (conservative: a name that fits two roles, or a role with two fitting names, gets none).
 */

export type RoleResource = 'device' | 'customer';

/** A property as the property-key list or a record shows it. */
export interface SeenProperty {
	name: string;
	keyId?: unknown;
	dataType?: unknown;
	resource?: unknown;
}

/** The first page of one list read by the doctor: its records' properties, one array per record. */
export interface RecordSource {
	/** How the evidence names it: "device list", "overdue list", "customer list". */
	label: string;
	resource: RoleResource;
	/** Whether the list answered (no records from a list that did not answer is not "no property"). */
	answered: boolean;
	records: SeenProperty[][];
}

/** The resource and data type a role's property has, and words its name plausibly holds. */
export const ROLE_HINTS: Record<PropertyRole, { resource: RoleResource; dataType: 'Text' | 'Date' | 'Number'; words: RegExp }> = {
	designation: { resource: 'device', dataType: 'Text', words: /designation|description|device name/i },
	idBarcode: { resource: 'device', dataType: 'Text', words: /barcode|asset|tag|label/i },
	lastTested: { resource: 'device', dataType: 'Date', words: /last.*test|tested|last.*inspect|last.*calibrat/i },
	nextTestDate: { resource: 'device', dataType: 'Date', words: /next|due|calibration/i },
	department: { resource: 'device', dataType: 'Text', words: /department|cost cent|division|area/i },
	customerName: { resource: 'customer', dataType: 'Text', words: /name|company/i },
	testInterval: { resource: 'device', dataType: 'Number', words: /interval|months|frequency/i },
	customerEmail: { resource: 'customer', dataType: 'Text', words: /e-?mail|contact|mail/i },
	location: { resource: 'device', dataType: 'Text', words: /location|site|room|building|place/i },
};

const DAY = /^\d{4}-\d{2}-\d{2}/;

/** The properties of each record, with their data type (as given, else from the value). */
export function recordProperties(records: unknown[]): SeenProperty[][] {
	return records.map((record) => {
		const props: SeenProperty[] = [];
		forEachProperty(record, (name, value, keyId, dataType) => {
			const inferred = typeof value === 'number' ? 'Number' : typeof value === 'string' ? (DAY.test(value) ? 'Date' : 'Text') : undefined;
			props.push({ name, keyId, dataType: typeof dataType === 'string' ? dataType : inferred });
		});
		return props;
	});
}

const holds = (role: PropertyRole, p: SeenProperty, profile: ServiceProfile) => holdsRole(role, p.name, p.keyId, profile);
const quote = (names: Iterable<string>) => [...names].map((n) => `'${n}'`).join(', ');

/**
 * Whether the records carry a property holding `role`. Unknown without records; differs when no
 * record carries one, or when records carry one the property-key list lacks (`inKeyList` false;
 * undefined when the key list did not answer).
 */
export function roleInRecords(role: PropertyRole, sources: RecordSource[], inKeyList: boolean | undefined, profile: ServiceProfile): { status: 'holds' | 'differs' | 'unknown'; evidence: string } {
	const own = sources.filter((s) => s.resource === ROLE_HINTS[role].resource);
	const read = own.filter((s) => s.records.length > 0);
	if (read.length === 0) {
		const why = own.map((s) => `${s.label} ${s.answered ? 'is empty' : 'did not answer'}`).join('; ');
		return { status: 'unknown', evidence: `no ${ROLE_HINTS[role].resource} records to look in (${why})` };
	}
	let carried = 0;
	const parts = read.map((s) => {
		const names = new Set<string>();
		let count = 0;
		for (const props of s.records) {
			const hit = props.find((p) => holds(role, p, profile));
			if (hit) {
				count++;
				names.add(hit.name);
			}
		}
		carried += count;
		if (count > 0) return `found in ${count} of ${s.records.length} ${s.label} records as ${quote(names)}`;
		const seen = new Set(s.records.flat().map((p) => p.name));
		return `in no ${s.label} record (${s.records.length} read); properties seen: ${quote(seen)}`;
	});
	const evidence = parts.join('; ');
	if (carried === 0) return { status: 'differs', evidence: `${evidence}${inKeyList ? '; the property-key list has it' : ''}` };
	if (inKeyList === false) return { status: 'differs', evidence: `${evidence}; but the property-key list has no such key` };
	return { status: 'holds', evidence };
}

/**
 * For each role in `missing`, the one unclaimed property (from the key list and the records) of
 * the role's resource and data type whose name fits the role's words. A property holding any
 * role of the profile is claimed; a property fitting two missing roles is suggested for neither.
 */
export function suggestRoles(missing: PropertyRole[], seen: SeenProperty[], profile: ServiceProfile): Partial<Record<PropertyRole, string>> {
	const claimed = new Set(seen.filter((p) => PROPERTY_ROLES.some((r) => holds(r, p, profile))).map((p) => p.name.trim().toLowerCase()));
	const fits = (role: PropertyRole, p: SeenProperty) => {
		const hint = ROLE_HINTS[role];
		return (p.resource === undefined || p.resource === hint.resource) && p.dataType === hint.dataType && hint.words.test(p.name);
	};
	// Names, not entries: the key list and the records show the same property.
	const sole = new Map<PropertyRole, string>();
	const fitting = new Map<string, number>();
	for (const role of missing) {
		const names = [...new Set(seen.filter((p) => fits(role, p)).map((p) => p.name.trim()))].filter((n) => !claimed.has(n.toLowerCase()));
		const lower = [...new Set(names.map((n) => n.toLowerCase()))];
		for (const n of lower) fitting.set(n, (fitting.get(n) ?? 0) + 1);
		if (lower.length === 1) sole.set(role, names[0]);
	}
	const out: Partial<Record<PropertyRole, string>> = {};
	for (const [role, name] of sole) if (fitting.get(name.toLowerCase()) === 1) out[role] = name;
	return out;
}
