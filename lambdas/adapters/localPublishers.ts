import { request } from 'undici';
import type { TecEvent } from '../events/event';
import { PublishError, type Log, type Publisher } from '../ports';

/** Each event as one JSON line, in the shape EventBridge rules see. */
export class LinePublisher implements Publisher {
	constructor(private readonly write: (line: string) => void) {}

	async publish(events: TecEvent[]): Promise<void> {
		for (const e of events) this.write(`${JSON.stringify({ source: e.source, 'detail-type': e['detail-type'], time: e.time, detail: e.detail })}\n`);
	}
}

/** POSTs each event to a URL (for example an n8n Webhook node), retrying with backoff. */
export class WebhookPublisher implements Publisher {
	constructor(
		private readonly url: string,
		private readonly log: Log,
		private readonly options: { attempts?: number; baseDelayMs?: number; timeoutMs?: number } = {},
	) {}

	async publish(events: TecEvent[]): Promise<void> {
		const failed: string[] = [];
		for (const e of events) if (!(await this.post(e))) failed.push(e.detail.metadata.dedupeKey);
		if (failed.length > 0) throw new PublishError(`The webhook did not accept ${failed.length} event(s): ${failed.join(', ')}`, failed);
	}

	private async post(event: TecEvent): Promise<boolean> {
		const { attempts = 4, baseDelayMs = 500, timeoutMs = 10_000 } = this.options;
		const body = JSON.stringify({ source: event.source, 'detail-type': event['detail-type'], time: event.time, detail: event.detail });
		for (let attempt = 1; attempt <= attempts; attempt++) {
			try {
				const res = await request(this.url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', 'x-dedupe-key': event.detail.metadata.dedupeKey },
					body,
					headersTimeout: timeoutMs,
					bodyTimeout: timeoutMs,
				});
				await res.body.dump();
				if (res.statusCode < 300) return true;
				if (res.statusCode < 500 && res.statusCode !== 429 && res.statusCode !== 408) {
					this.log.error('The webhook refused an event', { status: res.statusCode, dedupeKey: event.detail.metadata.dedupeKey });
					return false;
				}
				this.log.warn('The webhook answered an error; retrying', { status: res.statusCode, attempt });
			} catch (error) {
				this.log.warn('The webhook could not be reached; retrying', { error: (error as Error).message, attempt });
			}
			if (attempt < attempts) await new Promise((r) => setTimeout(r, baseDelayMs * 2 ** (attempt - 1)));
		}
		return false;
	}
}

/** Every publisher gets every event; the first failure fails the publish (state is then not recorded). */
export class FanOutPublisher implements Publisher {
	constructor(private readonly publishers: Publisher[]) {}

	async publish(events: TecEvent[]): Promise<void> {
		if (events.length === 0) return;
		for (const p of this.publishers) await p.publish(events);
	}
}
