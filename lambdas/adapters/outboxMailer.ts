import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toMime } from '../email/mime';
import type { Mailer, SendReceipt, SendRequest } from '../email/ports';

/**
 * The mailer of `npm start`: each e-mail goes to an outbox folder instead, as the MIME message SES
 * would send (`.eml`, opens in any mail app) and its HTML part on its own (`.html`, opens in a
 * browser). Once per key and recipient, like the SES mailer: the receipt next to the files says
 * it was written.
 */
export class OutboxMailer implements Mailer {
	readonly written: string[] = [];

	constructor(readonly dir: string) {}

	async sendOnce(request: SendRequest): Promise<SendReceipt> {
		const base = join(this.dir, safe(request.key), safe(request.recipient));
		const receiptPath = `${base}.json`;
		if (existsSync(receiptPath)) return JSON.parse(readFileSync(receiptPath, 'utf8')) as SendReceipt;
		mkdirSync(join(this.dir, safe(request.key)), { recursive: true });
		writeFileSync(`${base}.eml`, toMime(request.email));
		writeFileSync(`${base}.html`, request.email.html);
		const receipt: SendReceipt = { messageId: request.email.messageId, factKeys: request.factKeys, sentAt: request.email.date.toISOString() };
		writeFileSync(`${receiptPath}.tmp`, JSON.stringify(request.email.data === undefined ? receipt : { ...receipt, content: request.email.data }, null, request.email.data === undefined ? undefined : 2));
		renameSync(`${receiptPath}.tmp`, receiptPath);
		this.written.push(`${base}.eml`);
		return receipt;
	}
}

const safe = (name: string) => name.replace(/[^A-Za-z0-9@._-]+/g, '_');
