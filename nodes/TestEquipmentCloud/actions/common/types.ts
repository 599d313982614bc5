import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import type { NodeResource } from '../../shared/resources';
import type { WriteCheck } from '../../transport';

/** What each operation file exports as `execute`: the output items of one input item. */
export type OperationExecute = (this: IExecuteFunctions, i: number) => Promise<INodeExecutionData[]>;

/** One `<op>.operation.ts` file. */
export interface OperationModule {
	description: INodeProperties[];
	execute: OperationExecute;
	/** A write: its name and what to look for when its answer was lost (it may have been applied). */
	write?: WriteCheck;
}

/** How an operation shows in the Operation list, and what an AI agent reads to choose it. */
export interface OperationOption {
	name: string;
	/** What it does, what it returns and which ID it needs. */
	description: string;
	action: string;
}

/**
 * The Operation selector of one resource and its operations' parameters. `options` must name
 * exactly the operations the resource exports (checked at compile time).
 */
export function resourceDescription<O extends Record<string, OperationModule>>(
	resource: NodeResource,
	operations: O,
	options: Record<keyof O & string, OperationOption>,
	defaultOperation: keyof O & string,
): INodeProperties[] {
	const entries = Object.entries(options) as Array<[string, OperationOption]>;
	return [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: [resource] } },
			options: entries
				.map(([value, o]) => ({ name: o.name, value, description: o.description, action: o.action }))
				.sort((a, b) => a.name.localeCompare(b.name)),
			default: defaultOperation,
		},
		...Object.values(operations).flatMap((op) => op.description),
	];
}
