import { createHash } from 'node:crypto';
import type { ItemKey, PageMemory, RememberedPage, ServiceProfile } from '../../client';
import type { StoredItem } from '../ports';
import { DAY_MS } from './context';
import type { KnownPage } from './state';

/** A remembered page nobody read again for this long is dropped (the store's TTL). */
export const PAGE_MEMORY_MS = 2 * DAY_MS;
/** A page recalled run after run is written again this often, so that it does not expire. */
const REFRESH_MS = DAY_MS;
/** The most items a remembered page holds (a stored page stays well under DynamoDB's 400 KB an item). */
const MAX_KEYS = 20_000;
/** Characters of a page's text encoded and hashed at a time (`digest`). */
const HASHED_SLICE = 64 * 1024;
/** Part of every digest: a change of what is remembered, or how, forgets every page. */
const FORMAT = 'pages-v1';

export interface PageMemoryHooks {
	/** Whether the items of this page need nothing this run that only their records could give. */
	usable(page: KnownPage): boolean;
	/** A recalled page's items not yet seen in this scan (their keys), and the page. */
	recalled(keys: ItemKey[], page: KnownPage): void;
}

/**
 * The pages of a list a poller read and handled in full, by the offset of their first item
 * (client `PageMemory`): a page answered with the same text again, on a quiet night or a weekend,
 * is not parsed. Kept per offset, so the store holds one item per page of the list. A page goes
 * to the store (`handled`) only once its items are handled and every record of it could be read,
 * so a run that dies part-way, or a record skipped as unreadable, leaves it to be parsed again.
 */
export class RememberedPages implements PageMemory {
	private readonly salt: string;
	private current: { offset: number; page: KnownPage } | undefined;
	private pending: Array<StoredItem<KnownPage>> = [];

	constructor(
		private readonly known: ReadonlyMap<number, KnownPage>,
		profile: ServiceProfile,
		/** This run's number (ClockMark.run) and time stamp. */
		private readonly run: { run: number; now: number },
		private readonly hooks: PageMemoryHooks,
	) {
		// The profile names the keys (renamed ids read otherwise): another profile, other digests.
		this.salt = createHash('sha256').update(FORMAT).update(JSON.stringify(profile)).digest('base64');
	}

	digest(text: string): string {
		const hash = createHash('sha256').update(this.salt);
		// A slice at a time: hashing a string encodes it first, and a page's whole text at once would
		// take a second copy of it (a surrogate pair is never cut: the slices encode as the whole would).
		for (let at = 0; at < text.length; ) {
			let end = Math.min(text.length, at + HASHED_SLICE);
			const last = text.charCodeAt(end - 1);
			if (last >= 0xd800 && last <= 0xdbff && end < text.length) end++;
			hash.update(text.slice(at, end));
			at = end;
		}
		return hash.digest('base64');
	}

	recall(offset: number, digest: string): RememberedPage | undefined {
		const page = this.known.get(offset);
		this.current = page !== undefined && page.digest === digest && this.hooks.usable(page) ? { offset, page } : undefined;
		return this.current?.page;
	}

	read(offset: number, digest: string, page: RememberedPage): void {
		// Only pages that could be recalled: not empty (nothing to save), every key an id, and small
		// enough for one store item (DynamoDB: 400 KB).
		const { keys } = page;
		if (keys.length === 0 || keys.length > MAX_KEYS || !keys.every((key) => typeof key === 'number' && key >= 1)) return;
		this.pending.push({ key: String(offset), value: this.stamped({ ...page, keys: keys as number[], digest }) });
	}

	recalled(keys: ItemKey[]): void {
		const { offset, page } = this.current!;
		// Stamped again (it stands for this run's devices) only once the scan has gone on from it.
		if (this.run.now - page.at >= REFRESH_MS) this.pending.push({ key: String(offset), value: this.stamped(page) });
		this.hooks.recalled(keys, page);
	}

	/**
	 * The pages read since the last call, to store now that their items are handled: with the
	 * service's today their records showed, or none when a record of them could not be read.
	 */
	handled(serviceToday: string | undefined, everyRecordRead: boolean): Array<StoredItem<KnownPage> & { expiresAt: number }> {
		const pages = everyRecordRead ? this.pending : [];
		this.pending = [];
		return pages.map(({ key, value }) => ({
			key,
			value: serviceToday === undefined || value.serviceToday !== undefined ? value : { ...value, serviceToday },
			expiresAt: this.run.now + PAGE_MEMORY_MS,
		}));
	}

	private stamped(page: RememberedPage & { keys: number[]; digest: string; serviceToday?: string }): KnownPage {
		return { ...page, run: this.run.run, at: this.run.now };
	}
}

/** The remembered pages of a namespace, by offset; those past their time are left out. */
export function knownPages(items: Iterable<StoredItem<KnownPage>>, now: number): Map<number, KnownPage> {
	const pages = new Map<number, KnownPage>();
	for (const { key, value } of items) if (now - value.at < PAGE_MEMORY_MS) pages.set(Number(key), value);
	return pages;
}
