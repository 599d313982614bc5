import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detailJsonSchemas } from '../lambdas/events/schemas';
import { nodeOutputSchemas } from './nodeSchemas';
import { buildOpenApi } from './openapi';

/** `npm run contract`: writes every generated contract file (never edit them by hand). */
const root = join(__dirname, '..');
const files: Record<string, unknown> = { 'docs/openapi.json': buildOpenApi() };
for (const [name, schema] of Object.entries(detailJsonSchemas())) files[`lambdas/events/schemas/${name}`] = schema;
Object.assign(files, nodeOutputSchemas());
for (const [path, content] of Object.entries(files)) {
	mkdirSync(join(root, path, '..'), { recursive: true });
	writeFileSync(join(root, path), `${JSON.stringify(content, null, 2)}\n`);
	process.stdout.write(`wrote ${path}\n`);
}
