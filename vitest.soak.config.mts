import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { suite } from './vitest.config.mts';

/**
 * `npm run soak`: the test files that have long variants (those importing test/support/soak.ts),
 * run with TEC_SOAK=1. See the README's Development section.
 */
const ROOT = import.meta.dirname;
const USES_SOAK = /from '(?:\.\.?\/)+(?:support\/)?soak'/;

function soakFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return soakFiles(path);
		return entry.name.endsWith('.test.ts') && USES_SOAK.test(readFileSync(path, 'utf8')) ? [relative(ROOT, path)] : [];
	});
}

export default suite(soakFiles(join(ROOT, 'test')), { TEC_SOAK: '1' });
