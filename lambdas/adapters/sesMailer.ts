import { IdempotencyAlreadyInProgressError, IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import type { Context } from 'aws-lambda';
import { toMime } from '../email/mime';
import { SendInProgressError, type Mailer, type SendBudget, type SendReceipt, type SendRequest } from '../email/ports';

/** How long a sent e-mail is remembered: longer than any retry or second schedule firing of its day. */
export const SENT_RECORD_SECONDS = 3 * 86_400;

/**
 * Sends with Amazon SES v2 (the MIME message as raw content, so what goes out is byte for byte
 * what `npm start` previews), once per key and recipient: Powertools Idempotency records each
 * send in the state table. A send that throws leaves no record, so its retry sends. Each send
 * takes a slot of the deployment's sending budget first (adapters/dynamoSendBudget.ts).
 */
export class SesMailer implements Mailer {
	readonly config: IdempotencyConfig;
	private readonly send: (sendKey: [string, string], request: SendRequest) => Promise<SendReceipt>;

	constructor(
		persistenceStore: BasePersistenceLayer,
		private readonly ses: SESv2Client = new SESv2Client({}),
		options: { configurationSetName?: string; budget?: SendBudget; expiresAfterSeconds?: number; keyPrefix?: string } = {},
	) {
		this.config = new IdempotencyConfig({ expiresAfterSeconds: options.expiresAfterSeconds ?? SENT_RECORD_SECONDS });
		// Keyed by [key, recipient], selected here (the first argument, hashed as Powertools hashed the
		// JMESPath selection '[key, recipient]' before: the records stay found); no JMESPath in the bundle.
		this.send = makeIdempotent(
			async (_sendKey: [string, string], request: SendRequest): Promise<SendReceipt> => {
				const command = new SendEmailCommand({
					// The e-mail's own address: a request's recipient names the customer (several may share one address).
					Destination: { ToAddresses: [request.email.to] },
					Content: { Raw: { Data: Buffer.from(toMime(request.email), 'utf8') } },
					ConfigurationSetName: options.configurationSetName,
				});
				// Only real sends take a slot (one the idempotency record answers sends nothing), the message already built.
				await options.budget?.slot();
				const out = await this.ses.send(command);
				// Stored with the idempotency record: a run that finds it later records when the e-mail really went out.
				return { messageId: out.MessageId ?? '', factKeys: request.factKeys, sentAt: new Date().toISOString() };
			},
			// keyPrefix: the records' prefix when not this function's name (Powertools' default): the report's sends stay
			// under the digest's, which sent them before the report had a function of its own.
			{ persistenceStore, config: this.config, dataIndexArgument: 0, ...(options.keyPrefix ? { keyPrefix: options.keyPrefix } : {}) },
		);
	}

	/** In Lambda: an unfinished send is retried once the invocation that started it has timed out. */
	registerLambdaContext(context: Context): void {
		this.config.registerLambdaContext(context);
	}

	async sendOnce(request: SendRequest): Promise<SendReceipt> {
		try {
			return await this.send([request.key, request.recipient], request);
		} catch (error) {
			if (error instanceof IdempotencyAlreadyInProgressError) throw new SendInProgressError(`Another run is sending ${request.key} to ${request.recipient}`);
			throw error;
		}
	}
}
