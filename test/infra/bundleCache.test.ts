/**
 * Bundles kept between synths (infra/bundleCache.ts) are reused only while everything they were
 * built from is unchanged: the metafile's inputs, and what esbuild reads without listing it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keepBundle, reuseBundle } from '../../infra/bundleCache';

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function world() {
	const root = mkdtempSync(join(tmpdir(), 'tec-bundle-cache-'));
	dirs.push(root);
	const [cache, out, again, src] = ['cache', 'out', 'again', 'src'].map((d) => join(root, d));
	for (const dir of [cache, out, again, src]) mkdirSync(dir);
	writeFileSync(join(out, 'index.js'), 'bundle();');
	writeFileSync(join(out, 'index.js.map'), '{}');
	writeFileSync(join(src, 'handler.ts'), 'export const a = 1;');
	return { cache, out, again, src, entry: join(src, 'handler.ts') };
}

describe('the bundle cache', () => {
	it('reuses a kept bundle while its inputs are the same, and not once one changed', () => {
		const w = world();
		keepBundle(w.cache, w.entry, w.out, ['handler.ts'], w.src);
		expect(reuseBundle(w.cache, w.entry, w.again)).toBe(true);
		expect(readFileSync(join(w.again, 'index.js'), 'utf8')).toBe('bundle();');
		writeFileSync(w.entry, 'export const a = 2;');
		expect(reuseBundle(w.cache, w.entry, w.again)).toBe(false);
	});

	it('keys a bundle on the repository’s tsconfig.json and package.json too (esbuild reads them; its metafile does not list them)', () => {
		const w = world();
		keepBundle(w.cache, w.entry, w.out, ['handler.ts'], w.src);
		const [folder] = readdirSync(w.cache);
		const fingerprinted = Object.keys(JSON.parse(readFileSync(join(w.cache, folder, 'inputs.json'), 'utf8')) as object);
		expect(fingerprinted).toEqual(expect.arrayContaining([resolve('tsconfig.json'), resolve('package.json'), w.entry]));
	});
});
