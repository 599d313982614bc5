import { createRequire } from 'node:module';
import { configDefaults, defineConfig, type ViteUserConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * Files whose guarantees need the machine's attention (the load test's pacing under 50 clients):
 * they run alone, after the rest of the suite.
 */
export const ALONE = ['test/reliability/load.test.ts'];

/** The suite over `include` (globs or files); `npm test` takes every test, `npm run soak` its own. */
export function suite(include: string[], env: Record<string, string> = {}): ViteUserConfig {
	const alone = ALONE.filter((file) => include.includes(file) || include.includes('test/**/*.test.ts'));
	return defineConfig({
		resolve: {
			// One copy of n8n-workflow (its CommonJS build), the one n8n-core and the built node load.
			alias: { 'n8n-workflow': require.resolve('n8n-workflow') },
		},
		test: {
			globalSetup: ['test/support/globalSetup.ts'],
			testTimeout: 30_000,
			hookTimeout: 60_000,
			pool: 'forks',
			// The suite mostly waits (HTTP round trips, retry waits, child processes), so files run
			// four at a time even on two cores; vitest's default (cores - 1) would run them one by one.
			maxWorkers: 4,
			// describe.concurrent blocks (the fault matrix's eleven columns) run all their tests at once.
			maxConcurrency: 12,
			env,
			projects: [
				{ extends: true, test: { name: 'suite', include, exclude: [...configDefaults.exclude, ...ALONE], sequence: { groupOrder: 0 } } },
				{ extends: true, test: { name: 'alone', include: alone, sequence: { groupOrder: 1 } } },
			],
		},
	});
}

export default suite(['test/**/*.test.ts']);
