import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/** What each operation file exports as `execute`: the output items of one input item. */
export type OperationExecute = (this: IExecuteFunctions, i: number) => Promise<INodeExecutionData[]>;
