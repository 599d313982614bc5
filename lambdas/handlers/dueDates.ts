import type { Context } from 'aws-lambda';
import { pollDueDates } from '../pollers/dueDates';
import { powertoolsHandler } from './powertools';
import { runPoller } from './runtime';

/** Scheduled hourly: reads every device and keeps the history of due dates (compliance figures, dashboard metrics); with several accounts, of the account the schedule's input names. */
export const handler = powertoolsHandler((event: unknown, context: Context) => runPoller(pollDueDates, context, event));
