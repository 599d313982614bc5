import type { Context } from 'aws-lambda';
import { pollOverdueDevices } from '../pollers/overdueDevices';
import { powertoolsHandler } from './powertools';
import { runPoller } from './runtime';

/** Scheduled: polls the overdue devices list and emits Device Overdue / Resolved / Digest events. */
export const handler = powertoolsHandler((event: unknown, context: Context) => runPoller(pollOverdueDevices, context, event));
