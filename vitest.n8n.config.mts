import { defineConfig } from 'vitest/config';

/**
 * `npm run test:n8n`: the package inside the real n8n app (test/n8n-app/*.e2e.ts). Not part of
 * `npm test` (its include is test/**\/*.test.ts): the first run installs n8n (~2 GB, minutes).
 */
export default defineConfig({
	test: {
		include: ['test/n8n-app/**/*.e2e.ts'],
		globalSetup: ['test/n8n-app/globalSetup.ts'],
		// One n8n user folder (sqlite) and a 2-core machine: files one after the other.
		fileParallelism: false,
		pool: 'forks',
		testTimeout: 240_000,
		hookTimeout: 600_000,
		reporters: ['verbose'],
	},
});
