import type { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';

/** The token is cached by Powertools for 5 minutes, then read again (rotation takes effect). */
const TOKEN_MAX_AGE_S = 300;

/** The access token from its secret (plain text, or JSON with a `token` key). */
export async function readToken(secrets: SecretsProvider, arn: string): Promise<string> {
	const secret = await secrets.get(arn, { maxAge: TOKEN_MAX_AGE_S });
	const text = typeof secret === 'string' ? secret.trim() : secret ? new TextDecoder().decode(secret).trim() : '';
	if (text.startsWith('{')) {
		const token = (JSON.parse(text) as { token?: unknown }).token;
		if (typeof token === 'string' && token !== '') return token;
	} else if (text !== '') return text;
	throw new Error('The access token secret is empty: put the token in it (see docs/aws-deployment.md, "Put the access token in")');
}
