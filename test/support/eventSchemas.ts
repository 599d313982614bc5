import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';

/** Validates event details against the committed JSON Schemas (what consumers read). */
const dir = join(__dirname, '..', '..', 'lambdas', 'events', 'schemas');
const ajv = new Ajv2020({ strict: false, allErrors: true });
const byType = new Map<string, ReturnType<typeof ajv.compile>>();
for (const file of readdirSync(dir)) {
	const schema = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { title: string };
	const type = schema.title.split(' / ')[1].split(' (')[0];
	byType.set(type, ajv.compile(schema));
}

export function schemaErrors(event: { 'detail-type': string; detail: unknown }): string[] {
	const validate = byType.get(event['detail-type']);
	if (!validate) return [`no schema for ${event['detail-type']}`];
	return validate(event.detail) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
