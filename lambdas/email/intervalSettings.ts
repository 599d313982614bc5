import * as z from 'zod/v4-mini';
import { transform } from '../../client/node/zodMini';
import { intervalSettingsProblem, withIntervalDefaults, type IntervalSettingsInput } from '../../client/intervals';
import { once } from '../once';

/**
 * The monthly report's interval recommendations' settings (`intervals` beside the e-mail
 * settings): every part optional, each not given its default (client/intervals.ts,
 * DEFAULT_INTERVAL_SETTINGS). Checked by the client's own rule (intervalSettingsProblem), so the
 * settings name a problem as the node's Get Interval Recommendations does, under `intervals.`.
 */

const KEYS = ['reliabilityTarget', 'confidence', 'defaultEnvironment', 'minMonths', 'departments'];
const DEPARTMENT_KEYS = ['environment', 'minMonths', 'maxMonths'];

/** Not an object with only these keys: what is wrong, said for `where`. */
function shapeProblem(where: string, v: unknown, keys: string[]): string | undefined {
	if (typeof v !== 'object' || v === null || Array.isArray(v)) return `${where}: expected an object with ${keys.join(', ')} (each optional)`;
	const extra = Object.keys(v).filter((k) => !keys.includes(k));
	return extra.length > 0 ? `${where}: unknown ${extra.map((k) => `"${k}"`).join(', ')}; valid keys are ${keys.join(', ')}` : undefined;
}

/** The first problem of the settings as given, or undefined. */
function problemOf(v: unknown): string | undefined {
	let p = shapeProblem('intervals', v, KEYS);
	const departments = (v as IntervalSettingsInput | undefined)?.departments;
	if (p === undefined && departments !== undefined) {
		if (typeof departments !== 'object' || departments === null || Array.isArray(departments)) return 'intervals.departments: expected an object of department name → settings';
		for (const [name, d] of Object.entries(departments)) p ??= shapeProblem(`intervals.departments[${name}]`, d, DEPARTMENT_KEYS);
	}
	if (p !== undefined) return p;
	const q = intervalSettingsProblem(withIntervalDefaults(v as IntervalSettingsInput));
	return q && `intervals.${q.setting}: ${q.message}`;
}

export const intervalSettingsSchema = once(() =>
	z.pipe(
		z.unknown(),
		transform((v: unknown, ctx): IntervalSettingsInput | undefined => {
			// Blank (-c intervals=): the defaults.
			if (v === undefined || v === '') return undefined;
			const problem = problemOf(v);
			if (problem === undefined) return v as IntervalSettingsInput;
			ctx.addIssue({ code: 'custom', message: problem });
			return z.NEVER;
		}),
	),
);
