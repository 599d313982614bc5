/**
 * One poll at a time per trigger node. While the service is slow (maintenance, rate limit) one
 * poll may wait longer than the poll interval; n8n then starts the next poll of the same node
 * while the last is still running. That poll would read the same list again and compete for the
 * same token's rate budget, so it returns at once and the running poll finishes the work.
 */
const running = new Map<string, number>();

/** Marks the node's poll as running; undefined when one is running already (its start time then). */
export function startPoll(key: string, now: number): { finish: () => void } | { busySince: number } {
	const since = running.get(key);
	if (since !== undefined) return { busySince: since };
	running.set(key, now);
	return { finish: () => running.delete(key) };
}

/** The log line of a skipped poll: what happened and why, for the person reading n8n's log. */
export function skippedMessage(nodeName: string, busySinceMs: number, now: number): string {
	const seconds = Math.max(0, Math.round((now - busySinceMs) / 1000));
	return (
		`Poll of "${nodeName}" skipped: the previous poll of this node, started ${seconds} s ago, is still running ` +
		'(it waits for the service: rate limit, maintenance or slow answers). Nothing was requested; the running poll ' +
		'emits what is new, and the next poll continues from there.'
	);
}
