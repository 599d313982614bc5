import { MAX_LIMIT, boundaryOverlap } from '../../../client';

/**
 * The trigger reads whole lists (the overdue list, the results inside the window, the projects
 * updated since the watermark day, the devices coming due): large pages keep that to few
 * requests at 5 per second.
 */
export const SCAN_PAGE_SIZE = MAX_LIMIT;

/** Items re-read at each page boundary, so deletes before the cursor cannot hide an item. */
export const SCAN_OVERLAP = boundaryOverlap(SCAN_PAGE_SIZE);
