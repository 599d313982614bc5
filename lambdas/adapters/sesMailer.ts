import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import type { Context } from 'aws-lambda';
import { toMime } from '../email/mime';
import type { Mailer, SendReceipt, SendRequest } from '../email/ports';

/** How long a sent e-mail is remembered: longer than any retry or second schedule firing of its day. */
export const SENT_RECORD_SECONDS = 3 * 86_400;

/**
 * Sends with Amazon SES v2 (the MIME message as raw content, so what goes out is byte for byte
 * what `npm start` previews), once per key and recipient: Powertools Idempotency records each
 * send in the state table. A send that throws leaves no record, so its retry sends.
 */
export class SesMailer implements Mailer {
	readonly config: IdempotencyConfig;
	private readonly send: (request: SendRequest) => Promise<SendReceipt>;

	/** When the next send may start (sends paced to the account's SES sending rate). */
	private nextSendAt = 0;

	constructor(
		persistenceStore: BasePersistenceLayer,
		private readonly ses: SESv2Client = new SESv2Client({}),
		options: { configurationSetName?: string; maxSendRate?: number } = {},
	) {
		this.config = new IdempotencyConfig({ eventKeyJmesPath: '[key, recipient]', expiresAfterSeconds: SENT_RECORD_SECONDS });
		this.send = makeIdempotent(
			async (request: SendRequest): Promise<SendReceipt> => {
				if (options.maxSendRate) await this.slot(options.maxSendRate);
				const out = await this.ses.send(
					new SendEmailCommand({
						// The e-mail's own address: a request's recipient may name one of several customers sharing it.
						Destination: { ToAddresses: [request.email.to] },
						Content: { Raw: { Data: Buffer.from(toMime(request.email), 'utf8') } },
						ConfigurationSetName: options.configurationSetName,
					}),
				);
				return { messageId: out.MessageId ?? '', factKeys: request.factKeys };
			},
			{ persistenceStore, config: this.config },
		);
	}

	/**
	 * Evenly spaced starts, at most `rate` in any second (SES refuses sends above the account's
	 * maximum sending rate), a tenth apart more than that: requests do not arrive as evenly as they
	 * leave. Only real sends wait: one the idempotency record answers sends nothing.
	 */
	private async slot(rate: number): Promise<void> {
		const now = Date.now();
		const at = Math.max(now, this.nextSendAt);
		this.nextSendAt = at + Math.ceil(1100 / rate);
		if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
	}

	/** In Lambda: an unfinished send is retried once the invocation that started it has timed out. */
	registerLambdaContext(context: Context): void {
		this.config.registerLambdaContext(context);
	}

	sendOnce(request: SendRequest): Promise<SendReceipt> {
		return this.send(request);
	}
}
