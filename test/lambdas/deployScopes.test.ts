import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../sandbox/server';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const START = ['--import', 'tsx', join(ROOT, 'bin', 'start.ts')];

/** The scopes docs/aws-deployment.md's Prerequisites ask the access token for. */
function scopesTheDocsAskFor(): string[] {
	const doc = readFileSync(join(ROOT, 'docs', 'aws-deployment.md'), 'utf8');
	const prerequisites = doc.slice(doc.indexOf('## Prerequisites'), doc.indexOf('## Deploy'));
	const line = prerequisites.slice(prerequisites.indexOf('access token'), prerequisites.indexOf('base address'));
	return [...line.matchAll(/`([a-z_]+:(?:read|write))`/g)].map((m) => m[1]);
}

describe('the access token docs/aws-deployment.md asks for', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0 });
		// A small account, so the first run's backfill of measured values (its requests need the
		// same scopes) finishes within the run at the token's whole rate, not in 90-second slices.
		sandbox.account.reset({ size: { devices: 12 } });
	});
	afterAll(() => sandbox?.stop());

	it('lets every poller the stack deploys complete a run (the pollers name each device\'s customer: customers:read)', async () => {
		const scopes = scopesTheDocsAskFor();
		expect(scopes).toContain('devices:read');
		const { token } = sandbox.account.createToken({ scopes });
		const state = join(mkdtempSync(join(tmpdir(), 'tec-scopes-')), 'state.json');
		const out = await run(process.execPath, [...START, '--once', '--state', state], { cwd: ROOT, env: { ...process.env, TEC_BASE_URL: sandbox.url, TEC_TOKEN: token, BACKFILL_SHARE: '1' } }).catch((e: { code: number; stderr: string }) => e);
		expect('code' in out ? `exit ${out.code}: ${out.stderr.split('\n').filter((l) => l.includes('scope')).slice(0, 2).join('\n')}` : 'exit 0').toBe('exit 0');
		// The backfill ran to its end with these scopes (its log line: every device done).
		const log = `${'stdout' in out ? String(out.stdout) : ''}${'stderr' in out ? String(out.stderr) : ''}`;
		expect(log).toMatch(/Backfill of measured values: done/);
	}, 120_000);
});
