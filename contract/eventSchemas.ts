import { z } from 'zod/v4';
import { EVENT_SOURCE, EVENT_VERSION, eventSchemas } from '../lambdas/events/schemas';

/**
 * JSON Schema (2020-12) of each detail type, as committed in lambdas/events/schemas/. Kept out of
 * the Lambda code so that its bundles do not carry zod's JSON Schema generator.
 */
export function detailJsonSchemas(): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const [type, schema] of Object.entries(eventSchemas().DETAIL_SCHEMAS)) {
		const file = `${type.toLowerCase().replaceAll(' ', '-')}.v${EVENT_VERSION}.json`;
		out[file] = {
			...(z.toJSONSchema(schema, { target: 'draft-2020-12' }) as object),
			$id: `https://test-equipment-cloud.invalid/events/${file}`,
			title: `${EVENT_SOURCE} / ${type} (detail, version ${EVENT_VERSION})`,
		};
	}
	return out;
}
