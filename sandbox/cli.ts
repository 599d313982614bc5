import { parseArgs } from 'node:util';
import { DEFAULT_SEED, DEFAULT_SIZE } from './demo';
import { readProfileFile } from '../client/node/profileSchema';
import { startSandbox } from './server';

const USAGE = `Usage: npm run sandbox -- [--port N] [--host H] [--seed N] [--devices N] [--customers N] [--test-results N] [--environment sandbox|production] [--max-page-size N] [--profile FILE] [--accounts N]
  --test-results N: keep only the newest N test results (an account that started using the service later); without it, every device's whole history.
  --accounts N: N separate accounts (own data, own tokens, own 5 requests per second); the first line lists each one's token.`;

function wholeNumber(name: string, raw: string | undefined, fallback: number, min = 0): number {
	if (raw === undefined) return fallback;
	if (!/^\d+$/.test(raw) || Number(raw) < min) {
		process.stderr.write(`--${name} must be a whole number of at least ${min}, got "${raw}"\n${USAGE}\n`);
		process.exit(2);
	}
	return Number(raw);
}

async function main(): Promise<void> {
	let values;
	try {
		({ values } = parseArgs({
			options: {
				port: { type: 'string' },
				host: { type: 'string' },
				seed: { type: 'string' },
				devices: { type: 'string' },
				customers: { type: 'string' },
				'test-results': { type: 'string' },
				environment: { type: 'string' },
				'max-page-size': { type: 'string' },
				accounts: { type: 'string' },
				profile: { type: 'string' },
				quiet: { type: 'boolean' },
				help: { type: 'boolean' },
			},
		}));
	} catch (e) {
		process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
		process.exit(2);
	}
	if (values.help) {
		process.stdout.write(`${USAGE}\n`);
		return;
	}
	if (values.environment !== undefined && values.environment !== 'sandbox' && values.environment !== 'production') {
		process.stderr.write(`--environment must be sandbox or production\n${USAGE}\n`);
		process.exit(2);
	}
	let profile;
	try {
		profile = values.profile === undefined ? undefined : readProfileFile(values.profile);
	} catch (error) {
		process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
		process.exit(2);
	}
	const sandbox = await startSandbox({
		profile,
		port: wholeNumber('port', values.port, 8787),
		host: values.host ?? '127.0.0.1',
		seed: wholeNumber('seed', values.seed, DEFAULT_SEED),
		environment: values.environment as 'sandbox' | 'production' | undefined,
		maxPageSize: values['max-page-size'] === undefined ? undefined : wholeNumber('max-page-size', values['max-page-size'], 0, 1),
		accounts: wholeNumber('accounts', values.accounts, 1, 1),
		size: {
			devices: wholeNumber('devices', values.devices, DEFAULT_SIZE.devices),
			customers: wholeNumber('customers', values.customers, DEFAULT_SIZE.customers, 1),
			// Absent: every device's whole history; N keeps the newest N results.
			...(values['test-results'] === undefined ? {} : { testResults: wholeNumber('test-results', values['test-results'], 0) }),
		},
		log: values.quiet ? undefined : (line) => process.stdout.write(`${line}\n`),
	});
	// First line: one JSON object, for programs that start the sandbox.
	const several = sandbox.accounts.length > 1 ? { accounts: sandbox.accounts.map((a) => ({ id: a.id, token: a.token })) } : {};
	process.stdout.write(
		`${JSON.stringify({ url: sandbox.url, apiUrl: `${sandbox.url}/api/v1`, sandboxToken: sandbox.sandboxToken, adminUrl: sandbox.adminUrl, environment: sandbox.account.environment, ...several })}\n`,
	);
	process.stdout.write(`Test Equipment Cloud sandbox listening on ${sandbox.url}/api/v1 (Ctrl+C stops it)\n`);
	const stop = async () => {
		await sandbox.stop();
		process.exit(0);
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
}

main().catch((error) => {
	process.stderr.write(`The sandbox could not start: ${(error as Error).message}\n`);
	process.exit(1);
});
