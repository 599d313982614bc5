import type { IExecuteFunctions, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { FILTER_KEY_TYPE, ValidationError, validateFilter, type DataType, type FilterInput } from '../../../client';
import { clock, toNodeError } from '../transport';
import { emptyFromExpression, filtersFromBuilder, type BuiltFilters, type FilterRow } from './filtersBuilder';
import { dayIn } from './filtersDates';
import { cachedListKeys } from './filtersKeys';
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

/** An n8n parameter value as stored: an expression starts with "=". */
export function isExpression(value: unknown): boolean {
	return typeof value === 'string' && value.startsWith('=');
}

/**
 * The type-first Filters parameter's value (node versions 1–2, trigger version 1, as n8n stores it) → validated filter inputs of the client.
 * With `stored` (the parameter before n8n resolved it) and the item, a Text value that an expression left empty is refused.
 */
export function filtersFromParameter(value: unknown, resource: ListResource, expressions?: { item: number; stored: unknown }): FilterInput[] {
	const stored = (expressions?.stored ?? {}) as Record<string, FilterEntry[] | undefined>;
	const raw = (value ?? {}) as Record<string, FilterEntry[] | undefined>;
	const keyType = FILTER_KEY_TYPE[resource];
	const filters: FilterInput[] = [];
	for (const [group, dataType] of FILTER_GROUPS) {
		for (const [n, entry] of (raw[group] ?? []).entries()) {
			const input: FilterInput = {
				key: entry.key ?? '',
				join: entry.join,
				dataType,
				conditions: (entry.conditions?.condition ?? []).map((c, k) => {
					const shown = conditionValue(dataType, c.value);
					if (expressions && dataType === 'Text' && shown === '' && isExpression(stored[group]?.[n]?.conditions?.condition?.[k]?.value)) {
						throw new ValidationError(`Filters › ${dataType} Filter ${n + 1} (property ${String(entry.key ?? '')})`, emptyFromExpression(expressions.item));
					}
					return { keyword: String(c.keyword ?? ''), value: shown };
				}),
			};
			// Throws a ValidationError naming the filter as the form shows it.
			validateFilter(input, keyType, `Filters › ${dataType} Filter ${n + 1}`);
			filters.push(input);
		}
	}
	return filters;
}


/**
 * The property-first Filters of node version 3 and trigger version 2, read for one item: the
 * client's filters and their day-stable signature. Errors become a NodeOperationError that names
 * the property and the value (and the Filters parameter to check).
 */
export async function readFilterBuilder(ctx: IExecuteFunctions | IPollFunctions, resource: ListResource, itemIndex?: number): Promise<BuiltFilters> {
	const timeZone = ctx.getTimezone();
	const get = (name: string, fallback: unknown) =>
		itemIndex === undefined ? (ctx as IPollFunctions).getNodeParameter(name, fallback) : (ctx as IExecuteFunctions).getNodeParameter(name, itemIndex, fallback);
	try {
		return await filtersFromBuilder(get('filters', {}), get('filterJoin', 'AND'), {
			resource,
			timeZone,
			// The day the workflow runs, in its timezone (see filtersDates.ts).
			today: () => dayIn(clock.now(), timeZone),
			keys: () => cachedListKeys(ctx, resource),
			...(itemIndex === undefined ? {} : { expressions: { item: itemIndex, used: (row: number, field: keyof FilterRow) => isExpression(storedRows(ctx)[row]?.[field]) } }),
		});
	} catch (error) {
		if (error instanceof ValidationError) {
			throw new NodeOperationError(ctx.getNode(), error.message, {
				itemIndex,
				description: `Check the parameter "${error.parameter.startsWith('Filter ') ? 'Filters' : error.parameter}". Nothing was sent to the service.`,
			});
		}
		throw toNodeError(ctx.getNode(), error, itemIndex);
	}
}

/** The property-first Filters' rows as stored in the workflow (expressions unresolved). */
function storedRows(ctx: IExecuteFunctions | IPollFunctions): FilterRow[] {
	const stored = ctx.getNode().parameters.filters as { filter?: unknown } | undefined;
	return Array.isArray(stored?.filter) ? (stored.filter as FilterRow[]) : [];
}
