import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Bundles kept between synths (TEC_BUNDLE_CACHE names the folder; the test suite sets it): its
 * files synthesize dozens of stacks, each bundling every handler again. A kept bundle is reused
 * only while every file esbuild read for it (the metafile's inputs) is byte for byte the same, and
 * so are the bundle settings and esbuild; otherwise the handler is bundled as without the cache.
 */
const FILES = ['index.js', 'index.js.map'];
/**
 * What a bundle depends on besides its inputs: the settings and plugins, esbuild's version, and
 * what esbuild reads without listing it among the inputs (the repository's tsconfig.json, e.g.
 * useDefineForClassFields, and package.json).
 */
const SETTINGS = [join(__dirname, 'bundling.ts'), __filename, require.resolve('esbuild/package.json'), join(__dirname, '..', 'tsconfig.json'), join(__dirname, '..', 'package.json')];

const hash = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const folderOf = (cache: string, entry: string) => join(cache, hash(resolve(entry)).slice(0, 32));

function fingerprint(files: string[]): Record<string, string> {
	return Object.fromEntries(files.map((file) => [file, existsSync(file) ? hash(readFileSync(file)) : 'missing']));
}

/** Copies the kept bundle of `entry` into `outDir` when nothing it was built from has changed. */
export function reuseBundle(cache: string, entry: string, outDir: string): boolean {
	const folder = folderOf(cache, entry);
	try {
		const kept = JSON.parse(readFileSync(join(folder, 'inputs.json'), 'utf8')) as Record<string, string>;
		const now = fingerprint(Object.keys(kept));
		if (Object.entries(kept).some(([file, digest]) => now[file] !== digest)) return false;
		for (const file of FILES) copyFileSync(join(folder, file), join(outDir, file));
		return true;
	} catch {
		// None kept yet, or another process is replacing it: bundle.
		return false;
	}
}

/** Keeps the bundle of `entry` just written to `outDir`, with the fingerprint of what it was built from. */
export function keepBundle(cache: string, entry: string, outDir: string, inputs: string[], workingDir = process.cwd()): void {
	// Inputs are relative to esbuild's working directory; a plugin's virtual module ("namespace:path") is no file.
	const files = [...SETTINGS, ...inputs.map((input) => resolve(workingDir, input)).filter((file) => existsSync(file))];
	const folder = folderOf(cache, entry);
	let staging = '';
	try {
		staging = mkdtempSync(join(cache, 'staging-'));
		for (const file of FILES) copyFileSync(join(outDir, file), join(staging, file));
		writeFileSync(join(staging, 'inputs.json'), JSON.stringify(fingerprint(files)));
		// Renames only, so a reader never sees half a bundle: an outdated one is moved aside first.
		if (existsSync(folder)) renameSync(folder, `${staging}-outdated`);
		renameSync(staging, folder);
	} catch {
		// Another process kept it at the same moment: the cache is only a shortcut, the bundle is written.
	} finally {
		if (staging) for (const dir of [staging, `${staging}-outdated`]) rmSync(dir, { recursive: true, force: true });
	}
}
