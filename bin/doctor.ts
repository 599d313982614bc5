import { parseArgs } from 'node:util';
import { DEFAULT_PROFILE, parseBaseUrl, redactSecret, type ServiceProfile } from '../client';
import { readProfileFile } from '../client/node/profileSchema';
import { runDoctor, nothingDiffers } from '../doctor/checks';
import { table } from '../doctor/report';
import { connectDoctor } from '../doctor/connect';
import { startSandbox, type Sandbox } from '../sandbox/server';

/**
 * `npm run doctor`: checks every assumption of the service profile against an account, read-only.
 * Exit code 0 when nothing differs, 1 when something does, 2 for bad arguments.
 */
const USAGE = `Usage: npm run doctor -- [--base-url URL --token TOKEN] [--profile FILE] [--json] [--print-profile]
  Also TEC_BASE_URL, TEC_TOKEN, TEC_PROFILE (and TEC_ENVIRONMENT=production for a production token).
  Without a base URL and a token, the embedded sandbox (the default layout) is checked.
  Read-only: GET and OPTIONS only, at most 5 requests per second. The token is never printed.`;

/** The token given (never printed: every line written loses it). */
let secret: string | undefined;

function fail(message: string): never {
	process.stderr.write(`${redactSecret(message, secret)}\n${USAGE}\n`);
	process.exit(2);
}

async function main(): Promise<void> {
	let args;
	try {
		args = parseArgs({
			options: {
				'base-url': { type: 'string' },
				token: { type: 'string' },
				profile: { type: 'string' },
				json: { type: 'boolean' },
				'print-profile': { type: 'boolean' },
				help: { type: 'boolean' },
			},
		}).values;
	} catch (error) {
		fail((error as Error).message);
	}
	if (args.help) return void process.stdout.write(`${USAGE}\n`);
	const file = args.profile ?? process.env.TEC_PROFILE;
	let profile: ServiceProfile = DEFAULT_PROFILE;
	if (file) {
		try {
			profile = readProfileFile(file);
		} catch (error) {
			fail((error as Error).message);
		}
	}
	if (args['print-profile']) return void process.stdout.write(`${JSON.stringify(profile, null, 2)}\n`);

	let baseUrl = args['base-url'] ?? process.env.TEC_BASE_URL;
	let token = args.token ?? process.env.TEC_TOKEN;
	secret = token;
	if (Boolean(baseUrl) !== Boolean(token)) fail('give both a base URL and a token (--base-url and --token, or TEC_BASE_URL and TEC_TOKEN), or neither for the embedded sandbox');
	const environment = process.env.TEC_ENVIRONMENT === 'production' ? 'production' : 'sandbox';
	let sandbox: Sandbox | undefined;
	if (!baseUrl || !token) {
		sandbox = await startSandbox({ port: 0 });
		baseUrl = sandbox.url;
		token = sandbox.sandboxToken;
	}
	let base;
	try {
		base = parseBaseUrl(baseUrl, '--base-url (TEC_BASE_URL)');
	} catch (error) {
		fail((error as Error).message);
	}
	try {
		const deps = connectDoctor({ baseUrl: base, token, environment, profile });
		const result = await runDoctor(deps, profile);
		const out = args.json ? `${JSON.stringify(result)}\n` : table(result);
		process.stdout.write(redactSecret(out, secret));
		process.exitCode = nothingDiffers(result) ? 0 : 1;
	} finally {
		await sandbox?.stop();
	}
}

main().catch((error) => {
	process.stderr.write(`${redactSecret(`npm run doctor failed: ${(error as Error).message}`, secret)}\n`);
	process.exit(2);
});
