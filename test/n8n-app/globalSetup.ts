/**
 * Before the n8n-app tests: the n8n app installed (cached in .cache/n8n-app), this package
 * built and packed, and one n8n user folder with the tarball installed as a community node.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureN8nApp, InstallError, type N8nApp } from './install';
import { newUserFolder, packPackage, removeDir } from './harness';

declare module 'vitest' {
	export interface ProvidedContext {
		n8nApp: N8nApp;
		userFolder: string;
	}
}

/** What vitest passes to a global setup (its TestProject), as far as used here. */
interface Project {
	provide<K extends keyof import('vitest').ProvidedContext>(key: K, value: import('vitest').ProvidedContext[K]): void;
}

export default async function setup(project: Project): Promise<() => void> {
	let app: N8nApp;
	try {
		app = await ensureN8nApp();
	} catch (error) {
		const message = error instanceof InstallError ? error.message : String((error as Error).stack ?? error);
		throw new Error(`Could not install the n8n app for the tests (npm run test:n8n):\n${message}`);
	}
	const work = mkdtempSync(join(tmpdir(), 'tec-n8n-pack-'));
	const tarball = await packPackage(work);
	const userFolder = await newUserFolder(tarball, app);
	project.provide('n8nApp', app);
	project.provide('userFolder', userFolder);
	return () => {
		removeDir(userFolder);
		removeDir(work);
	};
}
