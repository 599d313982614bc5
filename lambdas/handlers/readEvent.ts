import { EventRefused } from '../email/events';
import { logger } from './powertools';

/**
 * Reads an event with its reader (Powertools Parser, lambdas/email/events.ts); a refused one is
 * logged with its detail type and each field, then thrown. (Apart from powertools.ts so that the
 * pollers, which read no event, do not bundle the readers.)
 */
export function readEvent<T>(read: () => T): T {
	try {
		return read();
	} catch (error) {
		if (error instanceof EventRefused) logger.error('Event refused: it does not match its schema', { detailType: error.detailType, issues: error.issues });
		throw error;
	}
}
