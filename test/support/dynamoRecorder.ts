import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One DynamoDB call as IAM sees it: the action and the partitions (`pk`) it touches (dynamodb:LeadingKeys). */
export interface DynamoCall {
	action: string;
	keys: string[];
}

type Attr = { S?: string } | undefined;
const pkOf = (item: Record<string, Attr> | undefined) => item?.pk?.S;

/** The partitions a request body names: its Key or Item, a Query's `:pk`, each item of a BatchWriteItem. */
function keysOf(action: string, body: Record<string, unknown>): string[] {
	if (action === 'BatchWriteItem') {
		const requests = Object.values(body.RequestItems as Record<string, Array<{ PutRequest?: { Item: Record<string, Attr> }; DeleteRequest?: { Key: Record<string, Attr> } }>>).flat();
		return requests.map((r) => pkOf(r.PutRequest?.Item ?? r.DeleteRequest?.Key)).filter((k): k is string => k !== undefined);
	}
	if (action === 'Query') return [(body.ExpressionAttributeValues as Record<string, Attr>)[':pk']?.S].filter((k): k is string => k !== undefined);
	const k = pkOf((body.Key ?? body.Item) as Record<string, Attr> | undefined);
	return k === undefined ? [] : [k];
}

/**
 * A pass-through in front of a DynamoDB endpoint (dynalite) that records every call's action and
 * partitions, so a test can hold what the code does against what its role allows.
 */
export class DynamoRecorder {
	readonly calls: DynamoCall[] = [];
	private server?: Server;

	constructor(private readonly target: string) {}

	async start(): Promise<string> {
		const target = new URL(this.target);
		this.server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				const body = Buffer.concat(chunks);
				const action = String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
				try {
					this.calls.push({ action, keys: keysOf(action, JSON.parse(body.toString('utf8')) as Record<string, unknown>) });
				} catch {
					this.calls.push({ action, keys: [] });
				}
				const forward = request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
					res.writeHead(answer.statusCode ?? 500, answer.headers);
					answer.pipe(res);
				});
				forward.on('error', (error) => res.destroy(error));
				forward.end(body);
			});
		});
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
	}

	async stop(): Promise<void> {
		await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
	}
}
