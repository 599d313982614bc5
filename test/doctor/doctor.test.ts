/**
 * `npm run doctor` over HTTP: the embedded sandbox holds every assumption (exit 0); a sandbox
 * serving a variant layout, checked with the default profile, differs in every way the variant
 * does, each named by its profile key (exit 1); the suggested profile plus the variant's paths
 * holds (exit 0). Read-only, and the token is never printed.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, parseBaseUrl, profileDifferences, resolveProfile, sharedPacers, tokenPacingKey, type PropertyRole, type ServiceProfile } from '../../client';
import { runDoctor, type DoctorResult } from '../../doctor/checks';
import { connectDoctor } from '../../doctor/connect';
import { systemClock } from '../../lambdas/adapters/undiciService';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/server';
import { paceFaster } from '../support/pacing';
import { VARIANTS } from '../support/profiles';

const ROOT = join(__dirname, '../..');
const DOCTOR = ['--import', 'tsx', join(ROOT, 'bin', 'doctor.ts')];
const run = promisify(execFile);
const env = { ...process.env, TEC_BASE_URL: '', TEC_TOKEN: '', TEC_PROFILE: '' };

type Outcome = { code: number; stdout: string; stderr: string };
async function doctor(args: string[], extraEnv: Record<string, string> = {}): Promise<Outcome> {
	try {
		const out = await run(process.execPath, [...DOCTOR, ...args], { cwd: ROOT, env: { ...env, ...extraEnv } });
		return { code: 0, ...out };
	} catch (error) {
		const e = error as { code: number; stdout: string; stderr: string };
		return { code: e.code, stdout: e.stdout, stderr: e.stderr };
	}
}

/** Requests per second of the sandboxes the checks read in this process: they test what the doctor finds, not its pacing (the CLI cases keep 5 per second). */
const RATE = 100;
const sandboxFor = (options: SandboxOptions) => startSandbox({ port: 0, ratePerSecond: RATE, ...options });

async function check(sandbox: Sandbox, profile: ServiceProfile): Promise<DoctorResult> {
	const token = sandbox.account.createToken({ label: 'doctor' }).token;
	// The token's shared pacer, made before connectDoctor's first request on the clock it uses.
	paceFaster(sharedPacers.forKey(tokenPacingKey(token, 'sandbox', parseBaseUrl(sandbox.url)), systemClock), RATE);
	return runDoctor(connectDoctor({ baseUrl: parseBaseUrl(sandbox.url), token, environment: 'sandbox', profile }), profile);
}

/** The key paths of a partial profile's leaves (`paging.style`, `fields.testResult.test_date.name`). */
function leaves(value: unknown, at = ''): string[] {
	if (value && typeof value === 'object' && !Array.isArray(value)) return Object.entries(value).flatMap(([k, v]) => leaves(v, at === '' ? k : `${at}.${k}`));
	return [at];
}

/** The check that names a leaf of the profile: its profile key, or the key of the whole group (paging). */
function namedBy(result: DoctorResult, leaf: string): boolean {
	const key = leaf.startsWith('paging.') && !/^paging\.(maxPageSize|itemsKey|countKey|nextKey)$/.test(leaf) ? 'paging.style' : leaf;
	return result.checks.some((c) => c.status === 'differs' && (key === c.profileKey || key.startsWith(`${c.profileKey}.`)));
}

describe('npm run doctor', () => {
	it.concurrent('on the embedded sandbox: every assumption holds, exit 0; --json is one object; --print-profile the default profile; bad arguments exit 2', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-doctor-'));
		writeFileSync(join(dir, 'bad.json'), '{"paging": {"maxPageSize": 0}}');
		const BAD = [['--nope'], ['--profile', join(dir, 'bad.json')], ['--base-url', 'https://tec.example.com']];
		// The runs at once: the embedded sandbox's run paces its requests, the others wait for nothing.
		const [out, printed, ...bads] = await Promise.all([doctor(['--json']), doctor(['--print-profile']), ...BAD.map(async (args) => await doctor(args))]);
		expect(out.code, out.stderr).toBe(0);
		const result = JSON.parse(out.stdout) as DoctorResult;
		expect(result.checks.length).toBeGreaterThan(30);
		for (const c of result.checks) {
			expect(Object.keys(c).sort()).toEqual(['evidence', 'id', 'profileKey', 'status']);
			expect(c.status, `${c.id}: ${c.evidence}`).not.toBe('differs');
		}
		expect(result.checks.filter((c) => c.status === 'holds').length).toBeGreaterThan(35);
		expect(result.suggestedProfile).toEqual({ version: 1 });

		expect(printed.code).toBe(0);
		expect(JSON.parse(printed.stdout)).toEqual(DEFAULT_PROFILE);

		for (const [i, args] of BAD.entries()) {
			expect(bads[i].code, args.join(' ')).toBe(2);
			expect(bads[i].stderr).toMatch(/Usage: npm run doctor/);
		}
		expect(bads[1].stderr).toContain('service profile: paging.maxPageSize: must be a whole number from 1 to 10000, got 0');
	}, 60_000);

	it.concurrent('the order of a sorted list: a service that respects case and puts missing values first differs from the default, and the suggestion holds', async () => {
		const ordering = { textCase: 'respect', missing: 'first' } as const;
		const sandbox = await sandboxFor({ profile: { version: 1, ordering } });
		try {
			// Designations in both cases, and devices without one to place.
			let n = 0;
			for (const device of sandbox.account.data.devices.values()) device.values[1] = n++ % 29 === 0 ? null : ['apple', 'Banana', 'cherry'][n % 3];
			const result = await check(sandbox, DEFAULT_PROFILE);
			const order = result.checks.find((c) => c.id === 'sorted list order');
			expect(order).toMatchObject({ status: 'differs', profileKey: 'ordering' });
			expect(result.suggestedProfile.ordering).toEqual(ordering);
			const again = await check(sandbox, resolveProfile({ ordering }));
			expect(again.checks.find((c) => c.id === 'sorted list order')).toMatchObject({ status: 'holds' });
		} finally {
			await sandbox.stop();
		}
	});

	it.concurrent('a real account given by --base-url and --token: the table, exit 1 when something differs, never the token', async () => {
		const sandbox = await startSandbox({ port: 0, profile: VARIANTS['page-numbers'] });
		try {
			const token = sandbox.account.createToken({ label: 'doctor cli' }).token;
			const out = await doctor(['--base-url', sandbox.url, '--token', token]);
			expect(out.code).toBe(1);
			expect(out.stdout).toMatch(/^Assumption\s+Status\s+Evidence\s+Profile key/);
			expect(out.stdout).toMatch(/path overdueDevice\.list\s+differs\s+GET \/data\/devices\/overdue\/: HTTP 404/);
			expect(out.stdout).toContain('Suggested profile');
			expect(out.stdout + out.stderr).not.toContain(token);
			// Read-only: nothing but GET and OPTIONS reached the service.
			expect(sandbox.account.data.devices.size).toBe(240);
		} finally {
			await sandbox.stop();
		}
	}, 60_000);

	it.concurrent('paging parameters no list of known names holds are discovered from a `next` link', async () => {
		const layout = resolveProfile({ paging: { limitParam: 'take', offsetParam: 'skip', defaultPageSize: 10 } });
		const sandbox = await sandboxFor({ profile: layout });
		try {
			const result = await check(sandbox, DEFAULT_PROFILE);
			expect(result.checks.find((c) => c.id === 'paging')).toMatchObject({ status: 'differs', evidence: expect.stringContaining('take/skip page it (limitOffset)') });
			expect(result.suggestedProfile.paging).toMatchObject({ limitParam: 'take', offsetParam: 'skip' });
		} finally {
			await sandbox.stop();
		}
	}, 90_000);

	for (const [name, variant] of Object.entries(VARIANTS)) {
		it.concurrent(`variant ${name}: the default profile differs, each difference named by its key; the suggestion plus the paths holds`, async () => {
			const sandbox = await sandboxFor({ profile: variant });
			try {
				const first = await check(sandbox, DEFAULT_PROFILE);
				const wanted = leaves(profileDifferences(variant)).filter((l) => l !== 'version' && l !== 'paging.defaultPageSize');
				for (const leaf of wanted) expect(namedBy(first, leaf), `${leaf} is not named:\n${first.checks.filter((c) => c.status === 'differs').map((c) => `${c.profileKey}: ${c.evidence}`).join('\n')}`).toBe(true);
				// A renamed property: no device record read (the lists whose paths hold) carries the role, the
				// check names its key, and the suggestion is the variant's property.
				const renamed = Object.entries(profileDifferences(variant).properties ?? {}) as Array<[PropertyRole, { names: string[] }]>;
				expect(renamed.length).toBeGreaterThan(0);
				for (const [role, { names }] of renamed) {
					const inRecords = first.checks.find((c) => c.id === `property ${role} in records`);
					expect(inRecords).toMatchObject({ status: 'differs', profileKey: `properties.${role}.names`, evidence: expect.stringMatching(/^in no (device|overdue) list record \(\d+ read\); properties seen: .*'/) });
					expect(inRecords!.evidence).not.toContain('found in');
					expect(inRecords!.evidence).toContain(`'${names[0]}'`);
					expect(first.suggestedProfile.properties?.[role]?.names).toEqual([names[0]]);
				}
				// The user adds what no answer can show: the paths of the lists that answered 404.
				const next = resolveProfile({ ...first.suggestedProfile, operations: profileDifferences(variant).operations });
				const second = await check(sandbox, next);
				expect(second.checks.filter((c) => c.status === 'differs').map((c) => `${c.id}: ${c.evidence}`)).toEqual([]);
				expect(second.checks.filter((c) => c.status === 'holds').length).toBeGreaterThan(30);
				for (const [role, { names }] of renamed) {
					expect(second.checks.find((c) => c.id === `property ${role} in records`)).toMatchObject({ status: 'holds', evidence: expect.stringMatching(new RegExp(`^found in (\\d+) of \\1 device list records as '${names[0]}'`)) });
				}
			} finally {
				await sandbox.stop();
			}
		}, 90_000);
	}
});
