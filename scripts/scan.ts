/**
 * `npm run scan`: n8n's verification scanner (@n8n/scan-community-package, the gate a community
 * package passes to be verified for n8n Cloud) over both of its legs: the packed tarball (compiled
 * JavaScript and package.json) and the source (package.json, nodes/, credentials/). Its CLI fetches
 * the package from the registry, so this calls its `analyzePackage` on local folders instead, with
 * the same rules. A copy of the tarball with one forbidden file (a file-system import and
 * `process.env`) must fail, so a scanner that checks nothing cannot pass.
 *
 * Installed into .cache/n8n-scan with --ignore-scripts (a dependency's install script demands
 * pnpm). The scanner's own dependency list names TypeScript 7, whose package has no JavaScript API
 * for @typescript-eslint's parser, so TypeScript 5 is installed beside it; n8n-workflow is a rule's
 * undeclared import.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pkg from '../package.json';

const SPECS = ['@n8n/scan-community-package@0.32.0', 'typescript@5.9.3', `n8n-workflow@${pkg.devDependencies['n8n-workflow']}`];
const ROOT = join(__dirname, '..');
const CACHE = join(ROOT, '.cache', 'n8n-scan');

interface Result {
	passed: boolean;
	message?: string;
	details?: string;
}
interface Scanner {
	analyzePackage(dir: string, patterns?: string[]): Promise<Result>;
	SOURCE_FILE_PATTERNS: string[];
}

function install(): void {
	const marker = join(CACHE, 'installed.json');
	if (existsSync(marker) && readFileSync(marker, 'utf8') === `${JSON.stringify(SPECS)}\n`) return;
	rmSync(CACHE, { recursive: true, force: true });
	mkdirSync(CACHE, { recursive: true });
	writeFileSync(join(CACHE, 'package.json'), '{"private": true}\n');
	execFileSync('npm', ['install', '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund', '--no-save', ...SPECS], { cwd: CACHE, stdio: ['ignore', 'ignore', 'inherit'] });
	writeFileSync(marker, `${JSON.stringify(SPECS)}\n`);
}

async function main(): Promise<void> {
	install();
	const entry = createRequire(join(CACHE, 'package.json')).resolve('@n8n/scan-community-package/scanner/scanner.mjs');
	const scanner = (await import(pathToFileURL(entry).href)) as Scanner;
	const work = mkdtempSync(join(tmpdir(), 'tec-scan-'));
	try {
		execFileSync('npm', ['pack', '--ignore-scripts', '--loglevel=warn', '--pack-destination', work], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
		const tarball = join(work, `${pkg.name}-${pkg.version}.tgz`);
		const unpacked = join(work, 'package');
		execFileSync('tar', ['-xzf', tarball, '-C', work]);
		const legs: Array<[string, Result]> = [
			['tarball', await scanner.analyzePackage(unpacked)],
			['source', await scanner.analyzePackage(ROOT, scanner.SOURCE_FILE_PATTERNS)],
		];
		const bad = join(work, 'bad');
		cpSync(unpacked, bad, { recursive: true });
		writeFileSync(join(bad, 'dist', 'nodes', 'Forbidden.js'), "const fs = require('fs');\nmodule.exports = () => fs.readFileSync(process.env.HOME);\n");
		const control = await scanner.analyzePackage(bad);
		let failed = false;
		for (const [leg, result] of legs) {
			console.log(`n8n scanner, ${leg}: ${result.passed ? 'passed' : `FAILED ${result.message ?? ''}`}`);
			if (!result.passed) {
				failed = true;
				if (result.details) console.log(result.details);
			}
		}
		if (control.passed || !control.details?.includes('no-restricted-imports') || !control.details.includes('no-restricted-globals')) {
			console.log(`n8n scanner, control: a package with a file-system import and process.env passed (${control.message ?? 'no findings'}); the scan checks nothing`);
			failed = true;
		} else console.log('n8n scanner, control: a forbidden file is found');
		if (failed) process.exitCode = 1;
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

void main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
