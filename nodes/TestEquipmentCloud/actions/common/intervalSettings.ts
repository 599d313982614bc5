import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { intervalSettingsProblem, unmatchedDepartments, ValidationError, type DepartmentIntervalLimits, type DguvEnvironment, type IntervalSettings } from '../../../../client';

/**
 * The interval recommendations' settings as parameters: Compliance › Get Interval Recommendations
 * has them at the top, E-mail › Build Monthly Compliance Report in its Interval Recommendations
 * options (the report the Lambdas send takes the same from the e-mail settings' `intervals`).
 * One description, one parser, one check (the client's, client/intervals.ts).
 */

const DISPLAY_NAMES: Record<string, string> = {
	reliabilityTarget: 'Reliability Target',
	confidence: 'Change Confidence',
	defaultEnvironment: 'Environment',
	minMonths: 'Minimum Interval (Months)',
	departments: 'Department Limits',
};

const environmentOptions = [
	{ name: 'Construction Site (DGUV V3: at Most 12 Months)', value: 'constructionSite' },
	{ name: 'Office or Similar (DGUV V3: at Most 24 Months)', value: 'office' },
	{ name: 'Workshop, Production or Similar (DGUV V3: at Most 12 Months)', value: 'workshop' },
];

export const intervalSettingProperties: INodeProperties[] = [
	{
		displayName: 'Reliability Target',
		name: 'reliabilityTarget',
		type: 'number',
		default: 0.98,
		typeOptions: { minValue: 0.5, maxValue: 0.999, numberPrecision: 3 },
		description: 'The share of tests that should pass at the end of an interval: 0.98 is DGUV V3’s 2 % failures',
	},
	{
		displayName: 'Change Confidence',
		name: 'confidence',
		type: 'number',
		default: 0.5,
		typeOptions: { minValue: 0, maxValue: 0.99, numberPrecision: 2 },
		description: 'The two-sided confidence of the limits the target is compared with: an interval is changed only when the target lies outside them',
	},
	{
		displayName: 'Environment',
		name: 'defaultEnvironment',
		type: 'options',
		default: 'workshop',
		options: environmentOptions,
		description: 'The environment of a department without limits of its own below; it sets the longest interval recommended (DGUV V3 Table 1B)',
	},
	{
		displayName: 'Minimum Interval (Months)',
		name: 'minMonths',
		type: 'number',
		default: 1,
		typeOptions: { minValue: 1, maxValue: 120, numberPrecision: 0 },
		description: 'The shortest interval recommended, where a department does not set its own; at most the Environment’s maximum (12 or 24 months)',
	},
	{
		displayName: 'Department Limits',
		name: 'departmentLimits',
		type: 'fixedCollection',
		placeholder: 'Add Department',
		typeOptions: { multipleValues: true },
		default: {},
		options: [
			{
				displayName: 'Department',
				name: 'department',
				values: [
					{ displayName: 'Department', name: 'name', type: 'string', default: '', description: 'The department, as the devices name it (whatever its case and spacing)' },
					{ displayName: 'Environment', name: 'environment', type: 'options', default: 'workshop', options: environmentOptions },
					{ displayName: 'Minimum Interval (Months)', name: 'minMonths', type: 'number', default: 0, description: '0 for the minimum above' },
					{ displayName: 'Maximum Interval (Months)', name: 'maxMonths', type: 'number', default: 0, description: '0 for the environment’s DGUV V3 maximum' },
				],
			},
		],
	},
];

function number(value: unknown, name: string): number {
	const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
	if (!Number.isFinite(n)) throw new ValidationError(name, `must be a number, got ${JSON.stringify(value)}`);
	return n;
}

/**
 * The settings from the parameters `value(name, default)` reads (the node's own, or an options
 * collection's), refused as the client refuses them, named as the editor names them (`prefix`:
 * the collection's name, e.g. "Interval Recommendations › ").
 */
export function intervalSettingsOf(value: (name: string, fallback: unknown) => unknown, prefix = ''): IntervalSettings {
	const departments: Record<string, DepartmentIntervalLimits> = {};
	const rows = (((value('departmentLimits', {}) as IDataObject | undefined)?.department ?? []) as IDataObject[]);
	for (const row of rows) {
		const name = typeof row.name === 'string' ? row.name : '';
		if (name.trim() === '') throw new ValidationError(`${prefix}Department Limits`, 'each row needs the department’s name');
		// The client names two rows of one department written differently; the same text twice would be one key here, so it is named before.
		if (Object.prototype.hasOwnProperty.call(departments, name)) throw new ValidationError(`${prefix}Department Limits`, `${JSON.stringify(name)} and ${JSON.stringify(name)} name the same department (names match whatever their case and spacing); keep one`);
		const min = number(row.minMonths ?? 0, `${prefix}Department Limits (${name.trim()}): Minimum Interval`);
		const max = number(row.maxMonths ?? 0, `${prefix}Department Limits (${name.trim()}): Maximum Interval`);
		departments[name] = { environment: (row.environment ?? 'workshop') as DguvEnvironment, ...(min === 0 ? {} : { minMonths: min }), ...(max === 0 ? {} : { maxMonths: max }) };
	}
	const settings: IntervalSettings = {
		reliabilityTarget: number(value('reliabilityTarget', 0.98), `${prefix}Reliability Target`),
		confidence: number(value('confidence', 0.5), `${prefix}Change Confidence`),
		defaultEnvironment: value('defaultEnvironment', 'workshop') as DguvEnvironment,
		minMonths: number(value('minMonths', 1), `${prefix}Minimum Interval`),
		departments,
	};
	const problem = intervalSettingsProblem(settings);
	// The client names its settings; the user sees the parameters' names.
	if (problem) throw new ValidationError(`${prefix}${DISPLAY_NAMES[problem.setting] ?? problem.setting.replace(/^departments\[(.*?)\]/, 'Department Limits ($1)')}`, problem.message);
	return settings;
}

/** An execution hint naming the Department Limits rows no device's department matches (they set nothing). */
export function hintUnmatchedDepartments(ctx: IExecuteFunctions, settings: IntervalSettings, devices: Iterable<{ department: string | null }>): void {
	const names = unmatchedDepartments(settings.departments, devices);
	if (names.length === 0) return;
	ctx.addExecutionHints({
		message: `Department Limits ${names.map((n) => JSON.stringify(n)).join(', ')} ${names.length === 1 ? 'matches' : 'match'} no device’s department (names match whatever their case and spacing): ${names.length === 1 ? 'its limits set' : 'their limits set'} nothing`,
		location: 'outputPane',
	});
}
