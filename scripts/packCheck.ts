/**
 * Checks what the npm tarball holds: every node and credential n8n loads (package.json "n8n"),
 * their icons and codex files, the output schemas, LICENSE and README; no declarations, source
 * maps or tests; no runtime dependencies. `tsx scripts/packCheck.ts` checks `npm pack --dry-run`
 * (of the current dist/); `tsx scripts/packCheck.ts file.tgz` checks a packed tarball.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..');

function tarballFiles(tarball?: string): string[] {
	if (tarball) {
		return execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
			.split('\n')
			.filter((l) => l && !l.endsWith('/'))
			.map((l) => l.replace(/^package\//, ''));
	}
	const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
	return (JSON.parse(out) as Array<{ files: Array<{ path: string }> }>)[0].files.map((f) => f.path);
}

function sourceAssets(dir: string): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })) {
		if (!entry.isFile()) continue;
		const path = relative(ROOT, join(entry.parentPath, entry.name));
		if (/\.(svg|png)$|\.node\.json$/.test(entry.name) || path.includes('/__schema__/')) out.push(`dist/${path}`);
	}
	return out;
}

export function packProblems(files: string[]): string[] {
	const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
		dependencies?: Record<string, string>;
	};
	const have = new Set(files);
	const required = ['package.json', 'LICENSE', 'README.md', ...pkg.n8n.nodes, ...pkg.n8n.credentials, ...sourceAssets('nodes'), ...sourceAssets('credentials')];
	const problems = required.filter((f) => !have.has(f)).map((f) => `missing: ${f}`);
	if (!have.has('dist/email/render.js')) problems.push('missing: dist/email/render.js (the e-mails the node builds)');
	if (!files.some((f) => f.includes('/__schema__/'))) problems.push('missing: the output schemas (dist/nodes/**/__schema__/**.json; npm run contract, then build)');
	for (const f of files) if (/\.d\.ts$|\.map$|\.test\.js$|^(?!dist\/).+\.ts$/.test(f)) problems.push(`should not ship: ${f}`);
	if (pkg.dependencies && Object.keys(pkg.dependencies).length > 0) problems.push(`runtime dependencies are not allowed in an n8n community node: ${Object.keys(pkg.dependencies).join(', ')}`);
	return problems;
}

if (require.main === module) {
	const files = tarballFiles(process.argv[2]);
	const problems = packProblems(files);
	if (problems.length > 0) {
		process.stderr.write(`The package is not complete (${files.length} files; build first: npm run build):\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
		process.exit(1);
	}
	process.stdout.write(`pack check: ${files.length} files, nodes, credential, icons, schemas, LICENSE and README present\n`);
}
