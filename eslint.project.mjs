// @ts-check
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/**
 * The rules for the code that is not the n8n node: Lambdas, CDK, sandbox, tests, benchmarks.
 * The root eslint.config.mjs must stay n8n's default (`n8n-node lint` strict mode compares it
 * byte for byte), and n8n's rules forbid Node's globals and imports that this code needs, so
 * each of these folders has an eslint.config.mjs that re-exports this one; ESLint picks the
 * nearest config per file with `ESLINT_FLAGS=unstable_config_lookup_from_file` (the default
 * from ESLint 10 on). `npm run lint` sets it.
 */
export default defineConfig([
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended],
		rules: {
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
		},
	},
]);
