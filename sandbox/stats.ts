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
	/** The largest page a list answers (above it a 400 naming the page size); undefined = no refusal (pages are cut at the profile's largest). */
	maxPageSize?: number;
}
