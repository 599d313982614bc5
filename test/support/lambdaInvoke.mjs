// Runs a Lambda bundle as the Node.js runtime does, in a process of its own (started by
// test/support/lambdaRuntime.ts with the function's environment): the module named by _HANDLER is
// loaded from the task root once, then invoked with each event in turn, as one warm execution
// environment serves one invocation after another. Imports nothing but Node.js itself.
// Usage: node lambdaInvoke.mjs <task root> <events.json> <results.json>
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const [taskRoot, eventsFile, resultsFile] = process.argv.slice(2);
const [file, exported] = process.env._HANDLER.split('.');
const module = createRequire(join(taskRoot, 'index.js'))(join(taskRoot, `${file}.js`));
const handler = module[exported];
if (typeof handler !== 'function') throw new Error(`${process.env._HANDLER}: the module exports no function "${exported}"`);

const events = JSON.parse(readFileSync(eventsFile, 'utf8'));
const timeoutMs = Number(process.env.TEC_INVOKE_TIMEOUT_MS);
const results = [];
for (const [i, event] of events.entries()) {
	const deadline = Date.now() + timeoutMs;
	const hex = (n) => randomBytes(n).toString('hex');
	// The runtime sets the trace header per invocation (not sampled: nothing goes to a daemon).
	process.env._X_AMZN_TRACE_ID = `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${hex(12)};Parent=${hex(8)};Sampled=0`;
	const context = {
		awsRequestId: `req-${i + 1}-${hex(4)}`,
		functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
		functionVersion: '$LATEST',
		invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:123456789012:function:${process.env.AWS_LAMBDA_FUNCTION_NAME}`,
		memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
		logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
		logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
		callbackWaitsForEmptyEventLoop: true,
		getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
	};
	try {
		results.push({ ok: true, value: (await handler(event, context)) ?? null });
	} catch (error) {
		results.push({ ok: false, error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) } });
	}
}
writeFileSync(resultsFile, JSON.stringify(results));
