import { SESv2Client } from '@aws-sdk/client-sesv2';
import { AWS_TEST_CONFIG } from './localAws';
import { serveLocally, type LocalServer } from './localServer';

export interface SesMessage {
	to: string[];
	/** The raw MIME message as SES received it. */
	raw: string;
	messageId: string;
	/** When it was accepted (ms). */
	at: number;
}

/**
 * A wire-level stand-in for Amazon SES v2 `SendEmail` (REST-JSON, `POST /v2/email/outbound-emails`)
 * for a real `SESv2Client`: it keeps what it accepted and can fail calls on a script.
 */
export class LocalSes {
	readonly sent: SesMessage[] = [];
	calls = 0;
	/** Fails a call with this status and error type when it returns one. */
	failCall: (call: number, to: string[]) => { status: number; type: string } | undefined = () => undefined;
	/** The account's maximum sending rate (GetAccount); with `enforceRate`, a send above it is refused as SES does (429). */
	maxSendRate = 14;
	enforceRate = false;
	refusedForRate = 0;
	private server?: LocalServer;
	url = '';

	async start(): Promise<this> {
		this.server = await serveLocally((req, raw, res) => {
			const reply = (status: number, payload: unknown, type?: string) => {
				res.writeHead(status, { 'content-type': 'application/json', ...(type ? { 'x-amzn-errortype': type } : {}) });
				res.end(JSON.stringify(payload));
			};
			if (req.method === 'GET' && req.url === '/v2/email/account') {
				return reply(200, { SendQuota: { Max24HourSend: 50_000, MaxSendRate: this.maxSendRate, SentLast24Hours: this.sent.length }, SendingEnabled: true, ProductionAccessEnabled: true });
			}
			if (req.method !== 'POST' || req.url !== '/v2/email/outbound-emails') return reply(404, { message: `no route ${req.method} ${req.url}` }, 'NotFoundException');
			const call = ++this.calls;
			const body = JSON.parse(raw.toString('utf8')) as { Destination?: { ToAddresses?: string[] }; Content?: { Raw?: { Data?: string } } };
			const to = body.Destination?.ToAddresses ?? [];
			const data = body.Content?.Raw?.Data;
			if (!data) return reply(400, { message: 'Content.Raw.Data is required here' }, 'BadRequestException');
			// SES takes addresses in 7-bit ASCII only: an internationalized domain in Punycode, no UTF-8 local part.
			const notAscii = to.find((a) => /[\u0080-\uFFFF]/.test(a));
			if (notAscii) return reply(400, { message: `Domain contains illegal character: ${notAscii}` }, 'BadRequestException');
			const now = Date.now();
			if (this.enforceRate && this.sent.filter((m) => m.at > now - 1000).length >= this.maxSendRate) {
				this.refusedForRate++;
				return reply(429, { message: 'Maximum sending rate exceeded.' }, 'TooManyRequestsException');
			}
			const failure = this.failCall(call, to);
			if (failure) return reply(failure.status, { message: 'scripted failure' }, failure.type);
			const messageId = `ses-${call}`;
			this.sent.push({ to, raw: Buffer.from(data, 'base64').toString('utf8'), messageId, at: now });
			reply(200, { MessageId: messageId });
		});
		this.url = this.server.url;
		return this;
	}

	client(maxAttempts = 1): SESv2Client {
		return new SESv2Client({ ...AWS_TEST_CONFIG, endpoint: this.url, maxAttempts });
	}

	async stop(): Promise<void> {
		await this.server?.stop();
	}
}

/**
 * The environment a deployed e-mail function reads (lambdas/email/env.ts), its AWS SDK clients
 * pointed at local endpoints (DynamoDB, SES, and Secrets Manager when given); `extra` adds or overrides.
 */
export function useEmailLambdaEnvironment(e: { dynamoUrl: string; sesUrl: string; secretsUrl?: string; table: string; timeZone: string; settings: unknown }, extra: Record<string, string> = {}): void {
	Object.assign(process.env, {
		AWS_REGION: AWS_TEST_CONFIG.region,
		AWS_ACCESS_KEY_ID: 'test',
		AWS_SECRET_ACCESS_KEY: 'test',
		AWS_ENDPOINT_URL_DYNAMODB: e.dynamoUrl,
		AWS_ENDPOINT_URL_SESV2: e.sesUrl,
		...(e.secretsUrl ? { AWS_ENDPOINT_URL_SECRETS_MANAGER: e.secretsUrl } : {}),
		POWERTOOLS_DEV: 'true',
		POWERTOOLS_LOG_LEVEL: 'ERROR',
		STATE_TABLE: e.table,
		TIME_ZONE: e.timeZone,
		TEC_ENVIRONMENT: 'sandbox',
		EMAIL_SETTINGS: JSON.stringify(e.settings),
		...extra,
	});
}

/** The decoded parts of a MIME message built by lambdas/email/mime.ts. */
/** A part's file name: quoted, or RFC 2231 encoded (filename*=UTF-8''…) when not ASCII. */
function fileName(part: string): string {
	const quoted = /filename="([^"]+)"/.exec(part);
	return quoted ? quoted[1] : decodeURIComponent(/filename\*=UTF-8''([^\s;]+)/.exec(part)![1]);
}

export function mimeParts(raw: string): { headers: Record<string, string>; text: string; html: string; attachments: Array<{ filename: string; contentType: string; content: string }> } {
	const [head] = raw.split('\r\n\r\n');
	const headers: Record<string, string> = {};
	for (const line of head.replace(/\r\n /g, ' ').split('\r\n')) {
		const i = line.indexOf(':');
		headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
	}
	// Every part of every multipart (alternative, and mixed around it when files are attached).
	const boundaries = [...raw.matchAll(/boundary="([^"]+)"/g)].map((m) => m[1]);
	const parts = boundaries.flatMap((b) => raw.split(`--${b}`).slice(1));
	const body = (p: string) => Buffer.from(p.split('\r\n\r\n')[1].replace(/\s+/g, ''), 'base64').toString('utf8');
	const part = (type: string) => {
		const p = parts.find((s) => s.startsWith(`\r\nContent-Type: ${type}`));
		return p ? body(p) : '';
	};
	const attachments = parts
		.filter((p) => p.startsWith('\r\nContent-Type') && p.includes('Content-Disposition: attachment'))
		.map((p) => ({ filename: fileName(p), contentType: /Content-Type: ([^;\r]+)/.exec(p)![1], content: body(p) }));
	return { headers, text: part('text/plain'), html: part('text/html'), attachments };
}
