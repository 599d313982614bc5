import { boundaryOverlap, type PageOptions, type ServiceClient } from '../../../client';

/**
 * The trigger reads whole lists (the overdue list, the results inside the window, the projects
 * updated since the watermark day, the devices coming due): the largest pages the service answers
 * keep that to few requests at 5 per second, and each page boundary re-reads a few items, so
 * deletes before the cursor cannot hide an item.
 */
export function scanOptions(client: ServiceClient): PageOptions {
	return { pageSize: client.maxPageSize, overlap: boundaryOverlap(client.maxPageSize) };
}
