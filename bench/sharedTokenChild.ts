import { createInterface } from 'node:readline';
import { ServiceError } from '../client';
import { connectService } from '../lambdas/adapters/undiciService';

/**
 * One process of several on one token (the sandbox runs in the parent): it reads every device
 * `reads` times with the client as the pollers connect it (undici, the token's pacer), after the
 * parent says "go" on stdin. Prints one JSON line: its wall time, answers, 429s and failed reads.
 * The token comes on stdin (never on the command line).
 */
async function main(): Promise<void> {
	const [url, reads = '3'] = process.argv.slice(2);
	const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
	const token = String((await lines.next()).value);
	let rateLimited = 0;
	let answers = 0;
	const client = connectService({
		baseUrl: url,
		token,
		environment: 'sandbox',
		onEvent: (e) => {
			if (e.type === 'response') answers++;
			if (e.type === 'retry' && e.kind === 'rateLimit') rateLimited++;
		},
	});
	process.stdout.write('ready\n');
	await lines.next(); // "go": every process starts together
	const started = performance.now();
	let failed = 0;
	let items = 0;
	for (let r = 0; r < Number(reads); r++) {
		try {
			for await (const page of client.pages('device.list', {}, { pageSize: client.maxPageSize })) items += page.length;
		} catch (error) {
			if (!(error instanceof ServiceError)) throw error;
			failed++;
			process.stderr.write(`read ${r + 1} failed: ${error.message}\n`);
		}
	}
	process.stdout.write(`${JSON.stringify({ ms: performance.now() - started, answers, rateLimited, failed, items })}\n`);
	process.exit(0);
}

main().catch((e) => {
	process.stderr.write(`${(e as Error).stack}\n`);
	process.exit(1);
});
