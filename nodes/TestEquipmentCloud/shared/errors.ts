import type { IDataObject, INode, INodeExecutionData, NodeApiError, NodeOperationError } from 'n8n-workflow';
import { MAY_HAVE_BEEN_APPLIED } from '../transport';

/**
 * The item of a failed input item under "On Error: Continue". n8n-core sends an item to the
 * error output only when its json has no keys but `error`, `message` and `details` (an item's own
 * `error` field would do too, but n8n-core then replaces the json with the bare message). So:
 * `error` is the message, `details` the service's description and HTTP code. Version 1 under
 * "Continue (using regular output)" keeps its flat json (`error`, `description`, `httpCode`) for
 * the workflows that read it. A write whose answer was lost carries `mayHaveBeenApplied: true`
 * (in `details`, or among those flat fields), so a retrying branch can look before it writes again.
 */
export function errorItem(error: NodeApiError | NodeOperationError, itemIndex: number, node: INode): INodeExecutionData {
	const description = error.description ?? undefined;
	const httpCode = 'httpCode' in error && error.httpCode ? error.httpCode : undefined;
	const applied = error.context[MAY_HAVE_BEEN_APPLIED] === true;
	let json: IDataObject;
	if (node.typeVersion < 2 && node.onError !== 'continueErrorOutput') {
		json = { error: error.message };
		if (description) json.description = description;
		if (httpCode) json.httpCode = httpCode;
		if (applied) json[MAY_HAVE_BEEN_APPLIED] = true;
	} else {
		const details: IDataObject = {};
		if (description) details.description = description;
		if (httpCode) details.httpCode = Number(httpCode);
		if (applied) details[MAY_HAVE_BEEN_APPLIED] = true;
		json = Object.keys(details).length > 0 ? { error: error.message, details } : { error: error.message };
	}
	return { json, pairedItem: { item: itemIndex } };
}
