import type { IDataObject } from 'n8n-workflow';
import { dueSoonSample, pollDueSoon } from './events/deviceDueSoon';
import { overdueSample, pollOverdue } from './events/deviceOverdue';
import { pollProjects, projectsSample } from './events/projectUpdated';
import { pollResults, resultsSample } from './events/testResultNew';
import { DEFAULT_THRESHOLD, measuredSample, pollMeasured } from './events/measuredAlerts';
import type { PollOutcome, PollRun } from './run';
import type { DueSoonState, MeasuredState, OverdueState, ProjectsState, ResultsState, TriggerState } from './state';

/**
 * The trigger's router: each event's poll and sample live in events/<event>.ts over the shared
 * run (run.ts) and state (state.ts), whose `readState` keeps only a state of the event polled.
 */

/** One poll of an active workflow: the new items and the state to keep (not stored yet). */
export async function pollEvent(run: PollRun, previous: TriggerState | undefined): Promise<PollOutcome> {
	switch (run.settings.event) {
		case 'deviceOverdue':
			return await pollOverdue(run, previous as OverdueState | undefined);
		case 'testResultNew':
			return await pollResults(run, previous as ResultsState | undefined);
		case 'projectUpdated':
			return await pollProjects(run, previous as ProjectsState | undefined);
		case 'deviceDueSoon':
			return await pollDueSoon(run, previous as DueSoonState | undefined);
		case 'testResultNearLimit':
		case 'deviceMeasurementDrift':
			return await pollMeasured(run, previous as MeasuredState | undefined, run.settings.threshold ?? DEFAULT_THRESHOLD, run.onHeldBack);
	}
}

/** "Fetch Test Event": the newest matching record, new or not. */
export async function fetchSample(run: PollRun): Promise<IDataObject | undefined> {
	switch (run.settings.event) {
		case 'deviceOverdue':
			return await overdueSample(run);
		case 'testResultNew':
			return await resultsSample(run);
		case 'projectUpdated':
			return await projectsSample(run);
		case 'deviceDueSoon':
			return await dueSoonSample(run);
		case 'testResultNearLimit':
		case 'deviceMeasurementDrift':
			return await measuredSample(run, run.settings.threshold ?? DEFAULT_THRESHOLD);
	}
}
