import type { Context } from 'aws-lambda';
import { pollDueSoon } from '../pollers/dueSoon';
import { powertoolsHandler } from './powertools';
import { runPoller } from './runtime';

/** Scheduled: reads the devices coming due and emits Device Due Soon events. */
export const handler = powertoolsHandler((event: unknown, context: Context) => runPoller(pollDueSoon, context, event));
