// @ts-check
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { defineConfig, globalIgnores } from 'eslint/config';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

// n8n's community-node rules at full strength: every rule of the plugin's strictest preset,
// plus the one it leaves out, all as errors. Nothing is switched off.
const communityNodesStrict = {
	...n8nCommunityNodesPlugin.configs.recommended,
	rules: Object.fromEntries(
		[
			...Object.keys(n8nCommunityNodesPlugin.configs.recommended.rules),
			'@n8n/community-nodes/node-class-description-icon-missing',
		].map((rule) => [rule, 'error']),
	),
};

export default defineConfig([
	globalIgnores(['dist/**', 'node_modules/**', 'coverage/**', 'cdk.out/**', '.cache/**', '.state/**']),
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended],
		rules: {
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
		},
	},
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'],
		extends: [communityNodesStrict],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
	},
	{
		files: ['package.json'],
		// The n8n rules walk ESTree nodes, which typescript-estree produces for JSON.
		languageOptions: { parser: tseslint.parser, parserOptions: { extraFileExtensions: ['.json'] } },
		rules: { ...n8nNodesBase.configs.community.rules },
	},
	{ files: ['credentials/**/*.ts'], rules: { ...n8nNodesBase.configs.credentials.rules } },
	{ files: ['nodes/**/*.ts'], rules: { ...n8nNodesBase.configs.nodes.rules } },
]);
