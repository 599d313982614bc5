/** Counters and settings the server and its admin interface share (kept apart so neither imports the other). */
export interface Stats {
	requests: number;
	byStatus: Record<string, number>;
	/** Requests per path (without the query). */
	byPath: Record<string, number>;
	/** Requests per account (`account-1`, …) whose token they carried (or the first's). */
	byAccount: Record<string, number>;
}

export interface PagingSettings {
	/** The largest `limit` a list answers; undefined = the client's MAX_LIMIT. */
	maxPageSize?: number;
}
