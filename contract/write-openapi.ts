import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApi } from './openapi';

const target = join(__dirname, '..', 'docs', 'openapi.json');
writeFileSync(target, `${JSON.stringify(buildOpenApi(), null, 2)}\n`);
process.stdout.write(`wrote ${target}\n`);
