import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import PostalMime from 'postal-mime';
import type { DemoSize } from '../../sandbox/demo';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { AWS_TEST_CONFIG, LocalAws, startDynamo } from '../support/localAws';
import { LocalSes } from '../support/localSes';
import { emittedMetrics, invokeBundle, type Invocations } from '../support/lambdaRuntime';
import type { Synthesized } from './readmeDeploy';

/**
 * A synthesized stack run as deployed, against the local stand-ins: its state table created from
 * the template, each poller invoked by each of its schedules with the schedule's input, the
 * events that reached the bus delivered to the collector as the rule would, then the first of next
 * month at the digest hour (re-test notices, digest, compliance report). Only the addresses of the
 * outside world are swapped: every account's base URL for the sandbox's, AWS's for the stand-ins'.
 */
type Json = ReturnType<typeof JSON.parse>;

export interface Run {
	/** Invocation results and output per function logical ID, in the order they ran. */
	invoked: Record<string, Invocations & { events: unknown[] }>;
	/** The events the pollers put on the bus (as EventBridge delivers them to the collector). */
	delivered: Json[];
	mail: Array<{ to: string[]; subject: string }>;
	metrics: ReturnType<typeof emittedMetrics>;
	/** When the digest and notices schedules fired (the first of next month at the digest hour). */
	scheduledTime: string;
}

const POLLER_ORDER = ['OverdueDevices', 'DueSoon', 'TestResults', 'DueDates'];

/** The first instant of next month's first day whose local hour in `timeZone` is `hour`. */
export function firstOfNextMonthAt(hour: number, timeZone: string, now = Date.now()): string {
	const d = new Date(now);
	const first = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
	const local = new Intl.DateTimeFormat('en-GB', { timeZone, day: '2-digit', hour: '2-digit', hourCycle: 'h23' });
	for (let t = first - 14 * 3_600_000; t < first + 38 * 3_600_000; t += 900_000) {
		const parts = Object.fromEntries(local.formatToParts(t).map((p) => [p.type, p.value]));
		if (parts.day === '01' && Number(parts.hour) === hour) return new Date(t).toISOString().replace('.000Z', 'Z');
	}
	throw new Error(`no ${hour}:00 on the first in ${timeZone}`);
}

export interface World {
	sandbox: Sandbox;
	aws: LocalAws;
	ses: LocalSes;
	dynamoUrl: string;
	dynamo: DynamoDBClient;
	stop(): Promise<void>;
}

export async function startWorld(size: Partial<DemoSize>, accounts: number): Promise<World> {
	const dynamo = await startDynamo('unused');
	const sandbox = await startSandbox({ port: 0, size, accounts });
	const aws = await new LocalAws().start();
	const ses = await new LocalSes().start();
	return {
		sandbox,
		aws,
		ses,
		dynamoUrl: dynamo.url,
		dynamo: new DynamoDBClient({ ...AWS_TEST_CONFIG, endpoint: dynamo.url }),
		stop: async () => {
			await Promise.all([sandbox.stop(), aws.stop(), ses.stop()]);
			await dynamo.stop();
		},
	};
}

/** Does an EventBridge event pattern (lists of values per key, nested for detail) match the event? */
function matches(pattern: Json, event: Json): boolean {
	return Object.entries(pattern).every(([k, want]) => (Array.isArray(want) ? want.includes(event?.[k]) : matches(want, event?.[k])));
}

/**
 * Runs the synthesized stack: `tokens` gives each account's token by the account's id (one
 * account: `default`), the sandbox serving them all.
 */
export async function runDeployment(s: Synthesized, world: World, tokens: Record<string, string>): Promise<Run> {
	const run: Run = { invoked: {}, delivered: [], mail: [], metrics: [], scheduledTime: '' };
	for (const [id, table] of s.ofType('AWS::DynamoDB::Table')) {
		const p = table.Properties;
		await world.dynamo.send(new CreateTableCommand({ TableName: s.resolve({ Ref: id }), BillingMode: 'PAY_PER_REQUEST', KeySchema: p.KeySchema, AttributeDefinitions: p.AttributeDefinitions }));
		while ((await world.dynamo.send(new DescribeTableCommand({ TableName: s.resolve({ Ref: id }) }))).Table?.TableStatus !== 'ACTIVE') await new Promise((r) => setTimeout(r, 5));
	}
	const endpoints = { AWS_ENDPOINT_URL_DYNAMODB: world.dynamoUrl, AWS_ENDPOINT_URL_EVENTBRIDGE: world.aws.url, AWS_ENDPOINT_URL_SECRETS_MANAGER: world.aws.url, AWS_ENDPOINT_URL_SESV2: world.ses.url };
	const local = (fnId: string) => {
		const fn = s.fn(fnId);
		// The one account's address and token (several accounts: in each schedule's input).
		if (fn.environment.TEC_BASE_URL) fn.environment.TEC_BASE_URL = world.sandbox.url;
		if (fn.environment.TEC_TOKEN_SECRET_ARN) world.aws.secrets.set(fn.environment.TEC_TOKEN_SECRET_ARN, JSON.stringify({ token: tokens.default }));
		return fn;
	};
	const withLocalAccount = (input: Json) => {
		if (!input?.account) return input;
		const token = tokens[input.account.id];
		if (token === undefined) throw new Error(`the sandbox serves no account ${input.account.id}`);
		world.aws.secrets.set(input.account.tokenSecretArn, JSON.stringify({ token }));
		return { ...input, account: { ...input.account, baseUrl: world.sandbox.url } };
	};
	const invoke = async (fnId: string, events: unknown[]) => {
		const out = await invokeBundle(local(fnId), events, endpoints);
		run.invoked[fnId] = { ...out, events };
		run.metrics.push(...emittedMetrics(out.lines));
		return out;
	};
	const schedules = s.ofType('AWS::Scheduler::Schedule').map(([id, r]) => {
		const input = s.resolve(r.Properties.Target.Input);
		return { id, fn: s.targetOf(r.Properties.Target.Arn), input: input === undefined ? undefined : (JSON.parse(input) as Json) };
	});
	const byFunction = new Map<string, Json[]>();
	for (const sc of schedules) byFunction.set(sc.fn, [...(byFunction.get(sc.fn) ?? []), sc]);

	// The pollers: every schedule of each, one warm function after another.
	const pollers = [...byFunction.keys()].filter((id) => s.fn(id).environment.POWERTOOLS_SERVICE_NAME === 'pollers');
	pollers.sort((a, b) => POLLER_ORDER.findIndex((p) => a.includes(p)) - POLLER_ORDER.findIndex((p) => b.includes(p)));
	for (const id of pollers) await invoke(id, byFunction.get(id)!.map((sc) => withLocalAccount(sc.input ?? {})));

	// The rule: what reached its bus and matches its pattern goes to its target, one event per invocation.
	for (const [, rule] of s.ofType('AWS::Events::Rule')) {
		const bus = s.resolve(rule.Properties.EventBusName);
		const pattern = rule.Properties.EventPattern;
		// Its Lambda targets (an n8n webhook's API destination is not run here).
		for (const target of rule.Properties.Targets.filter((t: Json) => s.isFunction(t.Arn))) {
			const fnId = s.targetOf(target.Arn);
			const events = world.aws.accepted
				.filter((e) => e.EventBusName === bus)
				.map((e, i) => ({ version: '0', id: `evt-${i + 1}`, 'detail-type': e.DetailType, source: e.Source, account: '123456789012', time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), region: 'eu-central-1', resources: [], detail: JSON.parse(e.Detail) as Json }))
				.filter((e) => matches(pattern, e));
			run.delivered.push(...events);
			if (events.length > 0) await invoke(fnId, events);
		}
	}

	// The first of next month at the digest hour: the notices (when deployed) and the monthly report, then the digest.
	const settings = JSON.parse(s.fn(schedules.find((sc) => sc.input?.scheduledTime)!.fn).environment.EMAIL_SETTINGS) as { digestHour: number };
	run.scheduledTime = firstOfNextMonthAt(settings.digestHour, s.resources[schedules.find((sc) => sc.input?.scheduledTime)!.id].Properties.ScheduleExpressionTimezone ?? 'UTC');
	const timed = [...byFunction.keys()].filter((id) => !pollers.includes(id));
	timed.sort((a, b) => Number(a.includes('Digest')) - Number(b.includes('Digest')));
	for (const id of timed) {
		await invoke(
			id,
			byFunction.get(id)!.map((sc) => JSON.parse(JSON.stringify(withLocalAccount(sc.input ?? {})).replaceAll('<aws.scheduler.scheduled-time>', run.scheduledTime))),
		);
	}
	for (const m of world.ses.sent) run.mail.push({ to: m.to, subject: (await PostalMime.parse(m.raw)).subject ?? '' });
	return run;
}

/** The invocations of a run that failed, as `function: message` lines (empty when all succeeded). */
export function failures(run: Run): string[] {
	return Object.entries(run.invoked).flatMap(([id, out]) => out.results.flatMap((r, i) => (r.ok ? [] : [`${id} #${i + 1}: ${r.error.message}`])));
}
