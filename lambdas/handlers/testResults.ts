import type { Context } from 'aws-lambda';
import { pollTestResults } from '../pollers/testResults';
import { powertoolsHandler } from './powertools';
import { runPoller } from './runtime';

/** Scheduled: polls the test results list and emits Test Result Recorded events. */
export const handler = powertoolsHandler((event: unknown, context: Context) => runPoller(pollTestResults, context, event));
