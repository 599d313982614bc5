import { beforeAll, vi } from 'vitest';
import type { DemoSize } from '../../sandbox/demo';
import { useLambdaEnvironment } from './localAws';
import { newTable, usePollerWorld, type World } from './pollers';

export interface HandlerWorld extends World {
	/** The state table the handlers' environment names. */
	table: string;
	bus: string;
}

/**
 * The world of the deployed entry points: the poller world, plus a state table, the sandbox token
 * in the local Secrets Manager and the Lambda environment pointed at them (lambdas/config.ts), so
 * a handler runs as it would in Lambda. Filled in `beforeAll`.
 */
export function useHandlerWorld(size: Partial<DemoSize>, bus = 'tec-alerts'): HandlerWorld {
	const world = usePollerWorld(size) as HandlerWorld;
	beforeAll(async () => {
		world.table = await newTable(world.dynamo);
		world.bus = bus;
		const secretArn = `arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-token-${world.table}`;
		world.aws.secrets.set(secretArn, JSON.stringify({ token: world.sandbox.sandboxToken }));
		useLambdaEnvironment({ baseUrl: world.sandbox.url, secretArn, table: world.table, bus, aws: world.aws, dynamoUrl: world.dynamoUrl });
	});
	return world;
}

/**
 * Runs `run` with everything the Logger prints caught: it writes to process.stdout and stderr, or
 * to the console when POWERTOOLS_DEV is set. Returns the result and the chunks in order.
 */
export async function captureOutput<T>(run: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
	const lines: string[] = [];
	// Outside POWERTOOLS_DEV the Logger prints warnings and errors to stderr, the rest to stdout.
	const writes = [process.stdout, process.stderr].map((stream) => vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => (lines.push(String(chunk)), true)));
	const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) =>
		vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(' '))),
	);
	try {
		return { result: await run(), lines };
	} finally {
		for (const write of writes) write.mockRestore();
		for (const spy of spies) spy.mockRestore();
	}
}

/** The JSON log and metric lines among captured output. */
export function jsonLines(lines: string[]): Array<Record<string, unknown>> {
	return lines
		.join('\n')
		.split('\n')
		.filter((l) => l.startsWith('{'))
		.map((l) => JSON.parse(l) as Record<string, unknown>);
}
