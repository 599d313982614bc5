/**
 * Runs this package's node inside n8n-core's real execution engine (WorkflowExecute with a
 * manual-trigger start node), without the n8n app. The node and credential types come from the
 * BUILT package (dist/) through n8n-core's own PackageDirectoryLoader, and credentials are
 * applied the way n8n's CLI applies generic auth (expressions resolved with $credentials).
 *
 * Needs N8N_USER_FOLDER and N8N_LOG_LEVEL=silent before n8n-core builds any service
 * (test/support/globalSetup.ts sets them, and builds dist/ when the sources are newer).
 */
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Container } from '@n8n/di';
import { Logger } from '@n8n/backend-common';
import {
	BinaryDataService,
	CredentialTestContext,
	ExecutionLifecycleHooks,
	LoadOptionsContext,
	PackageDirectoryLoader,
	TriggersAndPollers,
	WorkflowExecute,
	getExecutePollFunctions,
} from 'n8n-core';
import { ICredentialsHelper, NodeConnectionTypes, NodeHelpers, Workflow, deepCopy } from 'n8n-workflow';
import { usePatientRegexEngine } from './n8nRegex';
import { paceFaster } from './pacing';
import type {
	INodeCredentialTestResult,
	ExecutionError,
	IBinaryData,
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentials,
	IDataObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypeData,
	INodeTypes,
	IRequestOptionsSimplified,
	IRun,
	ITriggerFunctions,
	ITriggerResponse,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';

if (!process.env.N8N_USER_FOLDER || process.env.N8N_LOG_LEVEL !== 'silent') {
	throw new Error('Set N8N_USER_FOLDER and N8N_LOG_LEVEL=silent (vitest globalSetup) before loading test/support/n8n.ts');
}

export const PACKAGE_DIR = path.resolve(__dirname, '..', '..');
export const NODE_TYPE = 'testEquipmentCloud';
export const TRIGGER_NODE_TYPE = 'testEquipmentCloudTrigger';
export const CREDENTIAL_TYPE = 'testEquipmentCloudApi';

type CredentialStore = Record<string, ICredentialDataDecryptedObject>;

// ---- start node: a minimal manual trigger emitting the items registered for the run ----------
const START_TYPE = 'harness.manualTrigger';
const startItems = new Map<string, INodeExecutionData[]>();

class HarnessManualTrigger implements INodeType {
	description = {
		displayName: 'Harness Manual Trigger',
		name: 'manualTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Start node of the test harness',
		defaults: { name: 'Start' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Key', name: 'key', type: 'string', default: '' }] as INodeProperties[],
	} as INodeType['description'];

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const key = this.getNodeParameter('key') as string;
		const items = startItems.get(key) ?? [{ json: {} }];
		// The engine replaces `this.emit` after trigger() returns: call it late.
		return { manualTriggerFunction: async () => this.emit([items]) };
	}
}

// ---- node types from the built package --------------------------------------------------------
export interface LoadedPackage {
	nodeTypes: INodeTypes;
	credentialTypes: Record<string, ICredentialType>;
	packageName: string;
	loader: PackageDirectoryLoader;
}

class HarnessNodeTypes implements INodeTypes {
	constructor(private readonly data: INodeTypeData) {}
	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const entry = this.data[nodeType];
		if (!entry) throw new Error(`Unknown node type "${nodeType}"`);
		return entry.type;
	}
	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}
	getKnownTypes(): IDataObject {
		return Object.fromEntries(Object.keys(this.data).map((k) => [k, { className: k, sourcePath: '' }]));
	}
}

let loaded: Promise<LoadedPackage> | undefined;
/** The module of the built node that `loaded` holds, as Node's require cache had it. */
let loadedModule: NodeJS.Module | undefined;
const requireCache = createRequire(__filename).cache;
const BUILT_NODE = path.join(PACKAGE_DIR, 'dist', 'nodes', 'TestEquipmentCloud', 'TestEquipmentCloud.node.js');

export function loadPackage(): Promise<LoadedPackage> {
	// A file before in this process may have dropped the built node (test/support/sharedProcess.ts): load it anew.
	if (loaded && loadedModule && requireCache[realpathSync(BUILT_NODE)] !== loadedModule) loaded = loadedModule = undefined;
	loaded ??= (async () => {
		usePatientRegexEngine();
		const loader = new PackageDirectoryLoader(PACKAGE_DIR);
		await loader.loadAll();
		// The app registers community types as `<package name>.<node name>`.
		const data: INodeTypeData = {
			...Object.fromEntries(Object.entries(loader.nodeTypes).map(([name, t]) => [`${loader.packageName}.${name}`, t])),
			[START_TYPE]: { type: new HarnessManualTrigger(), sourcePath: __filename },
		};
		const credentialTypes = Object.fromEntries(Object.entries(loader.credentialTypes).map(([name, c]) => [name, c.type]));
		loadedModule = requireCache[realpathSync(BUILT_NODE)];
		return { loader, nodeTypes: new HarnessNodeTypes(data), credentialTypes, packageName: loader.packageName };
	})();
	return loaded;
}

// ---- credentials: plain data in memory, generic authenticate as the n8n CLI does it ----------
export class HarnessCredentialsHelper extends ICredentialsHelper {
	readonly authCalls: Array<{ type: string; url?: string }> = [];

	constructor(
		private readonly credentialTypes: Record<string, ICredentialType>,
		private readonly store: CredentialStore,
	) {
		super();
	}

	private type(name: string): ICredentialType {
		const t = this.credentialTypes[name];
		if (!t) throw new Error(`Unknown credential type "${name}"`);
		return t;
	}

	getParentTypes(name: string): string[] {
		const parents = this.credentialTypes[name]?.extends ?? [];
		return parents.flatMap((p) => [p, ...this.getParentTypes(p)]);
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.type(type).properties;
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const raw = this.store[type];
		if (!raw) throw new Error(`No credentials of type "${type}" given to the harness`);
		const withDefaults = NodeHelpers.getNodeParameters(this.type(type).properties, raw as never, true, false, null, null);
		return { ...(withDefaults as ICredentialDataDecryptedObject), ...raw };
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		this.authCalls.push({ type: typeName, url: (requestOptions as IHttpRequestOptions).url });
		const auth = this.type(typeName).authenticate;
		if (!auth) return requestOptions as IHttpRequestOptions;
		if (typeof auth === 'function') return await auth(credentials, requestOptions as IHttpRequestOptions);
		if (auth.type !== 'generic') return requestOptions as IHttpRequestOptions;
		const resolve = (value: unknown) =>
			workflow && node && typeof value === 'string'
				? workflow.expression.getSimpleParameterValue(node, value, 'internal', { $credentials: credentials }, undefined, '')
				: value;
		const opts = requestOptions as unknown as Record<string, Record<string, unknown>>;
		for (const [outerKey, inner] of Object.entries(auth.properties) as Array<[string, Record<string, unknown>]>) {
			for (const [key, value] of Object.entries(inner)) {
				opts[outerKey] ??= {};
				opts[outerKey][resolve(key) as string] = resolve(value);
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	async preAuthentication(
		_helpers: IHttpRequestHelper,
		_credentials: ICredentialDataDecryptedObject,
		_typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string): Promise<ICredentials> {
		const data = await this.getDecrypted({} as never, nodeCredentials, type);
		return {
			id: nodeCredentials.id ?? undefined,
			name: nodeCredentials.name,
			type,
			getData: () => data,
			getDataToSave: () => ({ id: nodeCredentials.id, name: nodeCredentials.name, type, data: '' }),
			setData: (d: ICredentialDataDecryptedObject) => Object.assign(data, d),
		} as unknown as ICredentials;
	}

	async updateCredentials(_n: INodeCredentialsDetails, type: string, data: ICredentialDataDecryptedObject) {
		this.store[type] = data;
	}

	async updateCredentialsOauthTokenData(_n: INodeCredentialsDetails, type: string, data: ICredentialDataDecryptedObject) {
		this.store[type] = { ...this.store[type], ...data };
	}
}

// ---- additionalData ---------------------------------------------------------------------------
let executionCounter = 0;

function buildAdditionalData(
	credentialsHelper: ICredentialsHelper,
	workflowData: IWorkflowBase,
	mode: WorkflowExecuteMode = 'manual',
): IWorkflowExecuteAdditionalData {
	const executionId = String(++executionCounter);
	const notAvailable = (what: string) => async () => {
		throw new Error(`${what} is not available in the test harness`);
	};
	return {
		hooks: new ExecutionLifecycleHooks(mode, executionId, workflowData),
		credentialsHelper,
		executionId,
		currentNodeExecutionIndex: 0,
		variables: {},
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678',
		formBaseUrl: 'http://localhost:5678/form',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		formTestBaseUrl: 'http://localhost:5678/form-test',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		mcpBaseUrl: 'http://localhost:5678/mcp',
		mcpTestBaseUrl: 'http://localhost:5678/mcp-test',
		executeWorkflow: notAvailable('executeWorkflow'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: notAvailable('startRunnerTask'),
	} as unknown as IWorkflowExecuteAdditionalData;
}

// ---- runNode ----------------------------------------------------------------------------------
export interface RunNodeOptions {
	parameters: IDataObject;
	/** Credential data by type; default: none. */
	credentials?: CredentialStore;
	inputItems?: INodeExecutionData[];
	nodeName?: string;
	/** Canvas settings, e.g. {onError: 'continueRegularOutput'}. */
	nodeSettings?: Partial<INode>;
	typeVersion?: number;
	/** Workflow settings beyond the execution order, e.g. {timezone: 'Europe/Berlin'}. */
	workflowSettings?: IDataObject;
}

export interface RunNodeResult {
	items: INodeExecutionData[];
	/** Every output of the node: [0] the main output, [1] the error output under "Continue (using error output)". */
	outputs: INodeExecutionData[][];
	/** The workflow-level error: a plain object (assert fields, not instanceof). */
	error: (ExecutionError & IDataObject) | undefined;
	run: IRun;
	credentialsHelper: HarnessCredentialsHelper;
}

export async function runNode(opts: RunNodeOptions): Promise<RunNodeResult> {
	const pkg = await loadPackage();
	const store = { ...(opts.credentials ?? {}) };
	const credentialsHelper = new HarnessCredentialsHelper(pkg.credentialTypes, store);
	const nodeName = opts.nodeName ?? 'Test Equipment Cloud';
	const key = `run-${++executionCounter}`;
	startItems.set(key, opts.inputItems ?? [{ json: {} }]);
	const nodes: INode[] = [
		{ id: 'start', name: 'Start', type: START_TYPE, typeVersion: 1, position: [0, 0], parameters: { key } },
		{
			id: 'under-test',
			name: nodeName,
			type: `${pkg.packageName}.${NODE_TYPE}`,
			typeVersion: opts.typeVersion ?? 1,
			position: [200, 0],
			parameters: deepCopy(opts.parameters) as INodeParameters,
			credentials: Object.fromEntries(Object.keys(store).map((type) => [type, { id: `cred-${type}`, name: type }])),
			...opts.nodeSettings,
		},
	];
	const connections = { Start: { main: [[{ node: nodeName, type: NodeConnectionTypes.Main, index: 0 }]] } };
	const workflow = new Workflow({
		id: 'harness-wf',
		nodes,
		connections,
		active: false,
		nodeTypes: pkg.nodeTypes,
		settings: { executionOrder: 'v1', ...opts.workflowSettings },
	});
	const workflowData = {
		id: 'harness-wf',
		name: 'Harness workflow',
		active: false,
		isArchived: false,
		nodes,
		connections,
		settings: { executionOrder: 'v1', ...opts.workflowSettings },
		createdAt: new Date(),
		updatedAt: new Date(),
	} as unknown as IWorkflowBase;
	try {
		const run = await new WorkflowExecute(buildAdditionalData(credentialsHelper, workflowData), 'manual').run({ workflow });
		const taskData = run.data.resultData.runData[nodeName]?.[0];
		return {
			items: taskData?.data?.main?.[0] ?? [],
			outputs: (taskData?.data?.main ?? []).map((output) => output ?? []),
			error: (run.data.resultData.error ?? taskData?.error) as RunNodeResult['error'],
			run,
			credentialsHelper,
		};
	} finally {
		startItems.delete(key);
	}
}

// ---- poll triggers ------------------------------------------------------------------------------
export interface RunPollOptions {
	parameters: IDataObject;
	credentials?: CredentialStore;
	/** This node's static data (what `getWorkflowStaticData('node')` returns) before the poll. */
	staticData?: IDataObject;
	/**
	 * 'trigger': one tick of an active workflow (n8n-core's PollContext from
	 *   getExecutePollFunctions, run by TriggersAndPollers.runPollFunction).
	 * 'manual': "Fetch Test Event" in the editor (WorkflowExecute in manual mode, which builds its
	 *   own PollContext with activation 'manual').
	 */
	mode?: 'trigger' | 'manual';
	activation?: WorkflowActivateMode;
	nodeName?: string;
	typeVersion?: number;
	/** Workflow settings beyond the execution order, e.g. {timezone: 'Europe/Berlin'}. */
	workflowSettings?: IDataObject;
}

export interface RunPollResult {
	/** poll()'s first output, or null when poll() returned null (nothing new). */
	items: INodeExecutionData[] | null;
	/** The node's static data after the poll (a JSON copy, as n8n stores it): feed it to the next poll. */
	staticData: IDataObject;
	/** Whether n8n saw the static data change (the app then saves it). */
	staticDataChanged: boolean;
	/** The thrown error (trigger mode) or the run's error (manual mode). */
	error: (ExecutionError & IDataObject) | undefined;
	credentialsHelper: HarnessCredentialsHelper;
}

/** Runs the trigger's poll() once through n8n-core, with the given static data. */
export async function runPoll(opts: RunPollOptions): Promise<RunPollResult> {
	const pkg = await loadPackage();
	const store = { ...(opts.credentials ?? {}) };
	const credentialsHelper = new HarnessCredentialsHelper(pkg.credentialTypes, store);
	const nodeName = opts.nodeName ?? 'Test Equipment Cloud Trigger';
	const mode = opts.mode ?? 'trigger';
	const node: INode = {
		id: 'poll-under-test',
		name: nodeName,
		type: `${pkg.packageName}.${TRIGGER_NODE_TYPE}`,
		typeVersion: opts.typeVersion ?? 1,
		position: [0, 0],
		parameters: deepCopy(opts.parameters) as INodeParameters,
		credentials: Object.fromEntries(Object.keys(store).map((type) => [type, { id: `cred-${type}`, name: type }])),
	};
	const staticKey = `node:${nodeName}`;
	const workflow = new Workflow({
		id: 'harness-poll-wf',
		nodes: [node],
		connections: {},
		active: mode === 'trigger',
		nodeTypes: pkg.nodeTypes,
		staticData: { [staticKey]: deepCopy(opts.staticData ?? {}) },
		settings: { executionOrder: 'v1', ...opts.workflowSettings },
	});
	const wfNode = workflow.getNode(nodeName)!; // parameters with their defaults applied
	const workflowData = {
		id: 'harness-poll-wf',
		name: 'Harness poll workflow',
		active: mode === 'trigger',
		isArchived: false,
		nodes: [node],
		connections: {},
		settings: { executionOrder: 'v1', ...opts.workflowSettings },
		createdAt: new Date(),
		updatedAt: new Date(),
	} as unknown as IWorkflowBase;
	const additionalData = buildAdditionalData(credentialsHelper, workflowData, mode === 'manual' ? 'manual' : 'trigger');

	let items: INodeExecutionData[] | null = null;
	let error: RunPollResult['error'];
	if (mode === 'trigger') {
		const pollFunctions = getExecutePollFunctions(workflow, wfNode, additionalData, 'trigger', opts.activation ?? 'activate');
		try {
			const result = await Container.get(TriggersAndPollers).runPollFunction(workflow, wfNode, pollFunctions);
			items = result?.[0] ?? null;
		} catch (caught) {
			error = caught as RunPollResult['error'];
		}
	} else {
		const run = await new WorkflowExecute(additionalData, 'manual').run({ workflow });
		const taskData = run.data.resultData.runData[nodeName]?.[0];
		items = taskData?.data?.main?.[0] ?? null;
		error = (run.data.resultData.error ?? taskData?.error) as RunPollResult['error'];
	}
	const all = workflow.staticData as IDataObject;
	return {
		items,
		staticData: JSON.parse(JSON.stringify(all[staticKey] ?? {})) as IDataObject,
		staticDataChanged: Boolean(all.__dataChanged),
		error,
		credentialsHelper,
	};
}

/** The lines n8n's logger receives while `body` runs (n8n-core's nodes log through it). */
export async function captureLogs<T>(body: () => Promise<T>): Promise<{ result: T; logs: Array<{ level: string; message: string }> }> {
	// Plain method swapping (no test framework here: the benchmarks load this file too).
	const logger = Container.get(Logger) as unknown as Record<string, (message: string) => void>;
	const logs: Array<{ level: string; message: string }> = [];
	const levels = ['debug', 'info', 'warn', 'error'] as const;
	const originals = levels.map((level) => [level, logger[level]] as const);
	for (const level of levels) logger[level] = (message: string) => void logs.push({ level, message });
	try {
		return { result: await body(), logs };
	} finally {
		for (const [level, original] of originals) logger[level] = original;
	}
}

// ---- whole workflows (the example files) ---------------------------------------------------------
export interface WorkflowJson {
	name: string;
	nodes: INode[];
	connections: IDataObject;
}

/**
 * Runs an importable workflow file: n8n's Manual Trigger is replaced by the harness trigger (the
 * engine starts from it the same way; it emits `startWith` when given); every other node must be
 * of this package.
 */
export async function runWorkflow(json: WorkflowJson, credentials: CredentialStore, startWith?: INodeExecutionData[]): Promise<{ run: IRun; error: RunNodeResult['error'] }> {
	const pkg = await loadPackage();
	const credentialsHelper = new HarnessCredentialsHelper(pkg.credentialTypes, { ...credentials });
	const key = `wf-${++executionCounter}`;
	if (startWith) startItems.set(key, startWith);
	const nodes = json.nodes.map((node): INode => {
		if (node.type === 'n8n-nodes-base.manualTrigger') {
			return { ...node, type: START_TYPE, typeVersion: 1, parameters: { key } };
		}
		return deepCopy(node);
	});
	const workflow = new Workflow({
		id: 'example-wf',
		name: json.name,
		nodes,
		connections: json.connections as never,
		active: false,
		nodeTypes: pkg.nodeTypes,
		settings: { executionOrder: 'v1' },
	});
	const workflowData = { id: 'example-wf', name: json.name, nodes, connections: json.connections, settings: {} } as unknown as IWorkflowBase;
	try {
		const run = await new WorkflowExecute(buildAdditionalData(credentialsHelper, workflowData), 'manual').run({ workflow });
		return { run, error: run.data.resultData.error as RunNodeResult['error'] };
	} finally {
		startItems.delete(key);
	}
}

// ---- loadOptions / listSearch methods, as the editor calls them ---------------------------------
/**
 * Calls one of the node's `methods.loadOptions` / `methods.listSearch` with n8n-core's own
 * LoadOptionsContext (the editor's context: current parameters, credentials, request helpers).
 */
export async function callMethod(args: {
	kind: 'loadOptions' | 'listSearch' | 'resourceMapping';
	method: string;
	parameters: IDataObject;
	credentials: CredentialStore;
	filter?: string;
	/** A list search's token for the next page, as n8n passes it back. */
	paginationToken?: string;
	/** The node type whose methods are called (default: the action node). */
	nodeType?: string;
}): Promise<unknown> {
	const pkg = await loadPackage();
	const credentialsHelper = new HarnessCredentialsHelper(pkg.credentialTypes, { ...args.credentials });
	const node: INode = {
		id: 'editor',
		name: 'Test Equipment Cloud',
		type: `${pkg.packageName}.${args.nodeType ?? NODE_TYPE}`,
		typeVersion: 1,
		position: [0, 0],
		parameters: deepCopy(args.parameters) as INodeParameters,
		credentials: Object.fromEntries(Object.keys(args.credentials).map((type) => [type, { id: `cred-${type}`, name: type }])),
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: pkg.nodeTypes });
	const workflowData = { id: 'editor-wf', name: 'Editor', nodes: [node], connections: {}, settings: {} } as unknown as IWorkflowBase;
	const additionalData = buildAdditionalData(credentialsHelper, workflowData);
	(additionalData as unknown as IDataObject).currentNodeParameters = node.parameters;
	const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters');
	const type = pkg.nodeTypes.getByNameAndVersion(node.type, 1);
	const fn = (type.methods?.[args.kind] as Record<string, (this: unknown, ...a: unknown[]) => Promise<unknown>> | undefined)?.[args.method];
	if (!fn) throw new Error(`The node has no ${args.kind} method "${args.method}"`);
	return args.kind === 'listSearch' ? await fn.call(context, args.filter, args.paginationToken) : await fn.call(context);
}

// ---- the credential's connection test -----------------------------------------------------------
/**
 * Runs the connection test as n8n's credential tester does for a node-tested credential: the
 * node's `credentialTest` method named by `testedBy`, called with n8n-core's CredentialTestContext
 * (whose request helper is n8n's own) and the decrypted credential with its defaults.
 */
export async function testCredential(data: ICredentialDataDecryptedObject, nodeName = NODE_TYPE): Promise<INodeCredentialTestResult> {
	const pkg = await loadPackage();
	const type = pkg.nodeTypes.getByNameAndVersion(`${pkg.packageName}.${nodeName}`, 1);
	const testedBy = type.description.credentials?.find((c) => c.name === CREDENTIAL_TYPE)?.testedBy;
	const fn = typeof testedBy === 'string' ? type.methods?.credentialTest?.[testedBy] : undefined;
	if (!fn) throw new Error(`${nodeName} does not test the ${CREDENTIAL_TYPE} credential`);
	const helper = new HarnessCredentialsHelper(pkg.credentialTypes, { [CREDENTIAL_TYPE]: data });
	const credentials = await helper.getDecrypted({} as never, { id: 'c', name: 'c' }, CREDENTIAL_TYPE);
	return await fn.call(new CredentialTestContext(), { id: 'c', name: 'c', type: CREDENTIAL_TYPE, data: credentials });
}

// ---- binary data ----------------------------------------------------------------------------------
export async function getBinaryBuffer(binary: IBinaryData): Promise<Buffer> {
	return await Container.get(BinaryDataService).getAsBuffer(binary);
}

// ---- pacing of the built node -----------------------------------------------------------------
/**
 * Paces the built node's requests with `token` at `ratePerSecond` for a sandbox started with that
 * rate (tests of what the node makes of a large account, not of pacing). The node keeps its
 * token's pacer in dist/'s process-wide registry; this makes that pacer before the node's first
 * request, on the node's own clock.
 */
export function paceNodeFaster(sandboxUrl: string, token: string, ratePerSecond: number): void {
	// The modules n8n-core's loader required: the node's own instances, not this file's sources.
	const fromDist = createRequire(path.join(PACKAGE_DIR, 'dist', 'package.json'));
	const client = fromDist('./client') as typeof import('../../client');
	const { clock } = fromDist('./nodes/TestEquipmentCloud/transport') as typeof import('../../nodes/TestEquipmentCloud/transport');
	paceFaster(client.sharedPacers.forKey(client.tokenPacingKey(token, 'sandbox', client.parseBaseUrl(sandboxUrl)), clock), ratePerSecond);
}
