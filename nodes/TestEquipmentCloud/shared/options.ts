import type { INodeProperties } from 'n8n-workflow';

/** Options every face of the node offers (action node and trigger). */

export const maxRetryWaitOption: INodeProperties = {
	displayName: 'Max Retry Wait (Seconds)',
	name: 'maxRetryWait',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: 90,
	description:
		'How long one request may wait in all for the rate limit (HTTP 429), maintenance (HTTP 451) or temporary server errors before the node fails. 0 fails at the first such answer.',
};

export const timeoutOption: INodeProperties = {
	displayName: 'Timeout (Seconds)',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 30,
	description:
		'How long to wait for the service to answer one request. A request that times out is repeated within Max Retry Wait, except a create, which is never sent twice.',
};

export const simplifyOption: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: false,
	description: 'Whether to return the properties as one object of name → value instead of the list the service sends',
};


/** Only in node version 1 (saved workflows keep their forms and outputs). */
export const VERSION_1: INodeProperties['displayOptions'] = { show: { '@version': [1] } };
/** From node version 2 on. */
export const FROM_VERSION_2: INodeProperties['displayOptions'] = { show: { '@version': [{ _cnd: { gte: 2 } }] } };

/** Node versions 1 and 2 (the type-first Filters). */
export const UP_TO_VERSION_2: INodeProperties['displayOptions'] = { show: { '@version': [{ _cnd: { lte: 2 } }] } };
/** From node version 3 on (the property-first Filters). */
export const FROM_VERSION_3: INodeProperties['displayOptions'] = { show: { '@version': [{ _cnd: { gte: 3 } }] } };

/** Version 2's Simplify: on by default, on the form (version 1 has it off, under Options). */
export const simplifyParameter: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description:
		'Whether to return the properties as one object of name → value (e.g. "Next Test Date": "2026-03-01"). Off: the list the service sends, with key IDs and types.',
	displayOptions: FROM_VERSION_2,
};
