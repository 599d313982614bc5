import type { StateStore, StoredItem } from '../ports';
import type { Locale } from '../../email/texts';

/**
 * The ports of the e-mail alerts. The store is the pollers' state store plus deletes (facts
 * leave a recipient's inbox once an e-mail carrying them went out); one adapter each in AWS
 * (DynamoDB, SES) and under `npm start` (a JSON file, an outbox folder).
 */
export interface MailStore extends Pick<StateStore, 'list' | 'get' | 'putMany'> {
	deleteMany(namespace: string, keys: string[]): Promise<void>;
}

export type { StoredItem };

/** One e-mail, both parts, ready to send. */
export interface OutgoingEmail {
	from: string;
	to: string;
	/** Where replies go when not to the sender (the re-test notices: the address to book a date). */
	replyTo?: string;
	subject: string;
	text: string;
	html: string;
	/** RFC 5322 Message-ID (with the angle brackets), stable for the same e-mail. */
	messageId: string;
	date: Date;
	/** The language its texts are in (the Content-Language header); unset = English. */
	locale?: Locale;
	/** Files sent along (the compliance report's CSV for the auditor). */
	attachments?: Array<{ filename: string; contentType: string; content: string }>;
	/** What the e-mail says, structured: the outbox writes it beside the e-mail (`.json`). */
	data?: unknown;
}

export interface SendRequest {
	/** What the e-mail is, e.g. `digest:2026-11-20` or `failed:<dedupeKey>`; with the recipient, the idempotency key. */
	key: string;
	recipient: string;
	/** The inbox facts the e-mail carries: removed from the inbox once it is sent. */
	factKeys: string[];
	email: OutgoingEmail;
}

export interface SendReceipt {
	messageId: string;
	/** The facts of the e-mail that was actually sent (on a repeat: of the first one). */
	factKeys: string[];
	/** When it was sent (on a repeat: the first send's time; absent in receipts of earlier versions). */
	sentAt?: string;
}

/**
 * One sending budget for the whole deployment (SES's maximum sending rate is the AWS account's):
 * every send takes a slot first, whichever function or service account it is for.
 */
export interface SendBudget {
	/** Resolves when this send may start. */
	slot(): Promise<void>;
}

/**
 * Another run is sending this e-mail right now (the same key and recipient): not a failure of
 * this one; the other run sends and records it.
 */
export class SendInProgressError extends Error {
	override readonly name = 'SendInProgressError';
}

export interface Mailer {
	/**
	 * Sends the e-mail unless one with the same key and recipient was sent before; then returns
	 * that earlier receipt. A failed send leaves no trace, so a retry sends.
	 */
	sendOnce(request: SendRequest): Promise<SendReceipt>;
}
