import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { clientFor, idParameter } from '../common/utils';

const properties: INodeProperties[] = [
	{
		displayName: 'File ID',
		name: 'fileId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 5011',
		description: 'The file to download, for example one of the "files" of a test result',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the file in',
	},
	requestOptions(),
];

export const description = updateDisplayOptions({ show: { resource: ['file'], operation: ['download'] } }, properties);

/** Generates the download link (valid 5 minutes), fetches it at once, returns n8n binary data. */
export async function execute(this: IExecuteFunctions, i: number): Promise<INodeExecutionData[]> {
	const fileId = idParameter(this, 'fileId', i);
	const binaryPropertyName = this.getNodeParameter('binaryPropertyName', i, 'data') as string;
	const client = await clientFor(this, i);
	const file = await client.downloadFile(fileId, 'File ID');
	const fileName = file.fileName ?? `file-${fileId}`;
	const binary = await this.helpers.prepareBinaryData(Buffer.from(file.data), fileName, file.mimeType);
	return [
		{
			json: { fileId, fileName, mimeType: binary.mimeType, fileSize: file.data.byteLength },
			binary: { [binaryPropertyName]: binary },
			pairedItem: { item: i },
		},
	];
}
