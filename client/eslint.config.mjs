import { config } from '@n8n/node-cli/eslint';

// The client ships inside the n8n package, so n8n's rules apply to it (no Node globals or
// imports that n8n Cloud forbids), but it has no n8n dependency: it throws its own typed errors,
// which the node's transport wraps once in NodeApiError.
export default [...config, { files: ['**/*.ts'], rules: { '@n8n/community-nodes/require-node-api-error': 'off' } }];
