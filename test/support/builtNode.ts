import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The built package's folder as Node's require cache names its modules (real path). */
const DIST = path.join(realpathSync(path.resolve(__dirname, '..', '..')), 'dist') + path.sep;

const requireCache = createRequire(__filename).cache;

/** The built node's modules (dist/…) now in Node's require cache. */
export function builtNodeModules(): string[] {
	return Object.keys(requireCache).filter((file) => file.startsWith(DIST));
}

/**
 * Drops the built node's modules from Node's require cache: the node that n8n's loader requires
 * next starts with a new process's memory (its pacers per token, page sizes learned per address,
 * the polls it counts as running), while n8n-core and n8n-workflow stay loaded.
 */
export function forgetBuiltNode(): void {
	for (const file of builtNodeModules()) delete requireCache[file];
	const left = builtNodeModules();
	if (left.length > 0) throw new Error(`The built node's modules stayed loaded: ${left.join(', ')}`);
}
