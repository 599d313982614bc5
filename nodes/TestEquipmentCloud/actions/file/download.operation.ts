import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { requestOptions } from '../common/list.description';
import { bodyId, clientFor, idParameter } from '../common/utils';

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
	...requestOptions(),
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
	if (this.getNode().typeVersion < 2) {
		return [
			{
				json: { fileId, fileName, mimeType: binary.mimeType, fileSize: file.data.byteLength },
				binary: { [binaryPropertyName]: binary },
				pairedItem: { item: i },
			},
		];
	}
	// The item keeps what it came from (the test result or device), the file's facts in the
	// service's naming, and the binary data of the input item besides the new file.
	const input = this.getInputData()[i] ?? { json: {} };
	return [
		{
			json: {
				...input.json,
				file_id: bodyId(fileId, 'File ID'),
				file_name: fileName,
				mime_type: binary.mimeType,
				file_size: file.data.byteLength,
			},
			binary: { ...(input.binary ?? {}), [binaryPropertyName]: binary },
			pairedItem: { item: i },
		},
	];
}
