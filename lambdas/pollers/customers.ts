import { roleValue } from '../../client';
import type { PollerContext } from './context';

/** Customer names by id, read in one list series (callers read it at most once per run, and only when needed). */
export async function customerNames(ctx: Pick<PollerContext, 'client'>): Promise<Map<number, string | null>> {
	const names = new Map<number, string | null>();
	for await (const raw of ctx.client.items('customer.list', {}, { pageSize: ctx.client.maxPageSize })) {
		const id = (raw as { id?: unknown }).id;
		if (typeof id !== 'number') continue;
		const name = roleValue(raw, 'customerName', ctx.client.profile);
		names.set(id, typeof name === 'string' ? name : null);
	}
	return names;
}

/**
 * The customer names of one run, read on first need and then shared by every part of the run that
 * names a device's customer (the results poller's failed steps and its measured-value warnings):
 * one list series per run, however many parts need it. A failed read is not kept (the next need reads again).
 */
export class RunCustomerNames {
	private names: Map<number, string | null> | undefined;
	constructor(private readonly ctx: Pick<PollerContext, 'client'>) {}

	async get(): Promise<Map<number, string | null>> {
		this.names ??= await customerNames(this.ctx);
		return this.names;
	}
}
