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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function unknownKeys(where: string, v: Record<string, unknown>, valid: string[]): string | undefined {
	const extra = Object.keys(v).filter((k) => !valid.includes(k));
	return extra.length === 0 ? undefined : `${where}: unknown ${extra.map((k) => `"${k}"`).join(', ')}; valid keys are ${valid.join(', ')}`;
}

/** The first problem of the settings as given, or undefined. */
function problemOf(v: unknown): string | undefined {
	if (!isObject(v)) return `intervals: expected an object with ${KEYS.join(', ')} (each optional), got ${JSON.stringify(v)?.slice(0, 40)}`;
	const keys = unknownKeys('intervals', v, KEYS);
	if (keys) return keys;
	if (v.departments !== undefined) {
		if (!isObject(v.departments)) return `intervals.departments: expected an object of department name → {${DEPARTMENT_KEYS.join(', ')}}`;
		for (const [name, d] of Object.entries(v.departments)) {
			if (!isObject(d)) return `intervals.departments[${name}]: expected an object with ${DEPARTMENT_KEYS.join(', ')} (each optional)`;
			const extra = unknownKeys(`intervals.departments[${name}]`, d, DEPARTMENT_KEYS);
			if (extra) return extra;
		}
	}
	const p = intervalSettingsProblem(withIntervalDefaults(v as IntervalSettingsInput));
	return p ? `intervals.${p.setting}: ${p.message}` : undefined;
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
