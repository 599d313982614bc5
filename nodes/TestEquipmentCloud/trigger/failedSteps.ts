import type { IDataObject } from 'n8n-workflow';
import { failedStepsOf, type ServiceClient } from '../../../client';

/**
 * Option "Include Failed Steps" of New Test Result: each failed result gets the steps that failed,
 * with their measured values and limits, from the detailed result (one request per failed
 * result; passed results cost none). A request that fails fails the poll before anything is
 * stored, so the next poll emits the same results again, with their steps.
 */
export async function withFailedSteps(client: ServiceClient, items: IDataObject[]): Promise<IDataObject[]> {
	const out: IDataObject[] = [];
	for (const record of items) {
		if (typeof record.status !== 'string' || record.status.toLowerCase() !== 'failed') {
			out.push(record);
			continue;
		}
		const detail = await client.call('testResult.get', { pathParams: { id: record.id }, parameter: 'id' });
		const steps = failedStepsOf(detail);
		out.push({ ...record, failed_steps: steps as unknown as IDataObject[], failed_step_count: steps.length });
	}
	return out;
}
