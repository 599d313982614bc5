import { config } from '@n8n/node-cli/eslint';

// The e-mails ship inside the n8n package (the node builds them, the Lambdas send them), so n8n's
// rules apply, as to client/. The room is pure: it imports only client/ and itself, never the
// Lambdas, the node, the AWS SDK, zod or Node's built-ins (n8n's scanner refuses those).
export default [
	...config,
	{ files: ['**/*.ts'], rules: { '@n8n/community-nodes/require-node-api-error': 'off' } },
	{
		files: ['**/*.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					patterns: [
						{ group: ['**/lambdas', '**/lambdas/**', '**/nodes/**', '**/sandbox/**', '**/infra/**', '**/contract/**', '**/client/node/**'], message: 'email/ rests on client/ only: it is imported by the node and the Lambdas, never the other way.' },
						{ group: ['@aws-sdk/*', '@aws-lambda-powertools/*', 'zod', 'zod/*', 'node:*', 'n8n-workflow'], message: 'email/ is pure: no AWS SDK, zod, n8n or Node built-ins.' },
					],
				},
			],
		},
	},
];
