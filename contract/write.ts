import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detailJsonSchemas } from './eventSchemas';
import { nodeOutputSchemas } from './nodeSchemas';
import { buildOpenApi } from './openapi';
import { serviceProfileJsonSchema } from '../client/node/profileSchema';

/** `npm run contract`: writes every generated contract file (never edit them by hand). */
const root = join(__dirname, '..');
const files: Record<string, unknown> = { 'docs/openapi.json': buildOpenApi(), 'docs/service-profile.schema.json': serviceProfileJsonSchema() };
for (const [name, schema] of Object.entries(detailJsonSchemas())) files[`lambdas/events/schemas/${name}`] = schema;
Object.assign(files, nodeOutputSchemas());
for (const [path, content] of Object.entries(files)) {
	mkdirSync(join(root, path, '..'), { recursive: true });
	writeFileSync(join(root, path), `${JSON.stringify(content, null, 2)}\n`);
	process.stdout.write(`wrote ${path}\n`);
}
