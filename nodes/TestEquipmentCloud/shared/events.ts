import type { OperationId } from '../../../client';
import type { ListResource } from './resources';

/** The trigger's events. The values are public API: workflows store them. */
export type TriggerEvent = 'deviceOverdue' | 'testResultNew' | 'projectUpdated' | 'deviceDueSoon' | 'testResultNearLimit' | 'deviceMeasurementDrift';

export const TRIGGER_EVENTS: readonly TriggerEvent[] = ['deviceOverdue', 'testResultNew', 'projectUpdated', 'deviceDueSoon', 'testResultNearLimit', 'deviceMeasurementDrift'];

/** The list each event watches (its filters are that list's filters). */
export const EVENT_RESOURCE: Record<TriggerEvent, ListResource> = {
	deviceOverdue: 'overdueDevice',
	testResultNew: 'testResult',
	projectUpdated: 'project',
	deviceDueSoon: 'device',
	testResultNearLimit: 'testResult',
	deviceMeasurementDrift: 'testResult',
};

export const EVENT_LIST: Record<TriggerEvent, OperationId> = {
	deviceOverdue: 'overdueDevice.list',
	testResultNew: 'testResult.list',
	projectUpdated: 'project.list',
	deviceDueSoon: 'device.list',
	testResultNearLimit: 'testResult.list',
	deviceMeasurementDrift: 'testResult.list',
};

export function isTriggerEvent(value: unknown): value is TriggerEvent {
	return typeof value === 'string' && (TRIGGER_EVENTS as readonly string[]).includes(value);
}
