import { FILTER_KEY_TYPE, validateFilter, type DataType, type FilterInput } from '../../../client';
import type { ListResource } from './resources';

interface FilterEntry {
	key?: number | string;
	join?: string;
	conditions?: { condition?: Array<{ keyword?: string; value?: string | number }> };
}

const FILTER_GROUPS: Array<[string, DataType]> = [
	['date', 'Date'],
	['number', 'Number'],
	['text', 'Text'],
];

function conditionValue(dataType: DataType, value: unknown): string | number {
	if (dataType === 'Date' && typeof value === 'string') {
		const trimmed = value.trim();
		// Expressions such as {{ $now }} give a timestamp: the filter compares days.
		return /^\d{4}-\d{2}-\d{2}T/.test(trimmed) ? trimmed.slice(0, 10) : trimmed;
	}
	if (typeof value === 'string' || typeof value === 'number') return value;
	return value === undefined || value === null ? '' : String(value);
}

/** The Filters parameter's value (as n8n stores it) → validated filter inputs of the client. */
export function filtersFromParameter(value: unknown, resource: ListResource): FilterInput[] {
	const raw = (value ?? {}) as Record<string, FilterEntry[] | undefined>;
	const keyType = FILTER_KEY_TYPE[resource];
	const filters: FilterInput[] = [];
	for (const [group, dataType] of FILTER_GROUPS) {
		for (const [n, entry] of (raw[group] ?? []).entries()) {
			const input: FilterInput = {
				key: entry.key ?? '',
				join: entry.join,
				dataType,
				conditions: (entry.conditions?.condition ?? []).map((c) => ({
					keyword: String(c.keyword ?? ''),
					value: conditionValue(dataType, c.value),
				})),
			};
			// Throws a ValidationError naming the filter as the form shows it.
			validateFilter(input, keyType, `Filters › ${dataType} Filter ${n + 1}`);
			filters.push(input);
		}
	}
	return filters;
}

