import { defineConfig } from 'vitest/config';

/**
 * `npm run test:deploy`: the stack as the README deploys it (test/deploy/*.e2e.ts): its commands
 * synthesized with the CDK CLI, every bundle run under Node.js 24 (.cache/node24, installed when
 * missing) against the sandbox and the local AWS stand-ins. Not part of `npm test` (its include is
 * test/**\/*.test.ts): three synths and Node 24 take a few minutes.
 */
export default defineConfig({
	test: {
		include: ['test/deploy/**/*.e2e.ts'],
		pool: 'forks',
		testTimeout: 60_000,
		hookTimeout: 300_000,
		reporters: ['verbose'],
	},
});
