import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
	resolve: {
		// One copy of n8n-workflow (its CommonJS build), the one n8n-core and the built node load.
		alias: { 'n8n-workflow': require.resolve('n8n-workflow') },
	},
	test: {
		include: ['test/**/*.test.ts'],
		globalSetup: ['test/support/globalSetup.ts'],
		testTimeout: 30_000,
		hookTimeout: 60_000,
		pool: 'forks',
		// The suite mostly waits (HTTP round trips, retry waits, child processes), so files run
		// four at a time even on two cores; vitest's default (cores - 1) would run them one by one.
		maxWorkers: 4,
		// describe.concurrent blocks (the fault matrix's eleven columns) run all their tests at once.
		maxConcurrency: 12,
	},
});
