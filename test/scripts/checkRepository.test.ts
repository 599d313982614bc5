import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/** The publish workflow's first check: package.json must name the repository that publishes. */
const exec = promisify(execFile);
const SCRIPT = join(__dirname, '../../scripts/checkRepository.mjs');
const dir = mkdtempSync(join(tmpdir(), 'tec-repo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function check(pkg: object, repository: string | undefined): Promise<{ code: number; stdout: string; stderr: string }> {
	const file = join(dir, `package-${Math.random().toString(36).slice(2)}.json`);
	writeFileSync(file, JSON.stringify(pkg));
	const env = { ...process.env, GITHUB_REPOSITORY: repository ?? '' };
	return exec(process.execPath, [SCRIPT, file], { env }).then(
		(r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
		(e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
	);
}

const named = (url: string, home = 'https://github.com/Acme-Labs/n8n-nodes-tec#readme', bugs = 'https://github.com/acme-labs/n8n-nodes-tec/issues') => ({
	repository: { type: 'git', url },
	homepage: home,
	bugs: { url: bugs },
});

describe('the publish workflow\'s repository check', () => {
	it.each([
		'git+https://github.com/acme-labs/n8n-nodes-tec.git',
		'https://github.com/Acme-Labs/n8n-nodes-tec',
		'git@github.com:acme-labs/n8n-nodes-tec.git',
		'github:acme-labs/n8n-nodes-tec',
	])('passes %s for acme-labs/n8n-nodes-tec', async (url) => {
		const out = await check(named(url), 'acme-labs/n8n-nodes-tec');
		expect(out.code, out.stderr).toBe(0);
		expect(out.stdout).toContain('package.json names acme-labs/n8n-nodes-tec');
	});

	it('fails on the placeholder URLs, naming each field, the repository and the fix', async () => {
		const placeholder = named(
			'git+https://github.com/test-equipment-cloud/n8n-nodes-test-equipment-cloud.git',
			'https://github.com/test-equipment-cloud/n8n-nodes-test-equipment-cloud#readme',
			'https://github.com/test-equipment-cloud/n8n-nodes-test-equipment-cloud/issues',
		);
		const out = await check(placeholder, 'acme-labs/n8n-nodes-tec');
		expect(out.code).toBe(1);
		const errors = out.stderr.split('\n').filter((l) => l.startsWith('::error'));
		expect(errors).toHaveLength(3);
		expect(errors[0]).toContain('repository.url is git+https://github.com/test-equipment-cloud/n8n-nodes-test-equipment-cloud.git, but this workflow publishes from acme-labs/n8n-nodes-tec');
		expect(errors[0]).toContain('Set it to https://github.com/acme-labs/n8n-nodes-tec (repository.url as git+https://github.com/acme-labs/n8n-nodes-tec.git) before the first release');
		expect(errors[1]).toMatch(/homepage is .*#readme/);
		expect(errors[2]).toMatch(/bugs\.url is .*\/issues/);
	});

	it('fails on a look-alike: another owner, or the name as a prefix', async () => {
		expect((await check(named('git+https://github.com/acme-labs/n8n-nodes-tec-fork.git'), 'acme-labs/n8n-nodes-tec')).code).toBe(1);
		expect((await check(named('git+https://github.com/other/n8n-nodes-tec.git'), 'acme-labs/n8n-nodes-tec')).code).toBe(1);
		expect((await check(named('git+https://gitlab.com/acme-labs/n8n-nodes-tec.git'), 'acme-labs/n8n-nodes-tec')).code).toBe(1);
	});

	it('fails outside GitHub Actions (no GITHUB_REPOSITORY), saying so', async () => {
		const out = await check(named('github:acme-labs/n8n-nodes-tec'), undefined);
		expect(out.code).toBe(1);
		expect(out.stderr).toContain('GITHUB_REPOSITORY is not set');
	});

	it('the package as it is in this repository names its placeholder, so the check fails until it is set', async () => {
		const out = await exec(process.execPath, [SCRIPT, join(__dirname, '../../package.json')], { env: { ...process.env, GITHUB_REPOSITORY: 'acme-labs/n8n-nodes-tec' } }).catch((e: { code: number; stderr: string }) => e);
		expect((out as { code?: number }).code).toBe(1);
	});
});
