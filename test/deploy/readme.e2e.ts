import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disposeRuntime, node24 } from '../support/lambdaRuntime';
import { failures, runDeployment, startWorld, type Run, type World } from './deployment';
import { accountsCommand, deployCommand, readmeSetting, synthesize, type Synthesized } from './readmeDeploy';

/**
 * The stack as the README's deploy guide (docs/aws-deployment.md) deploys it: its own commands synthesized (one account; several
 * accounts; e-mail routing with customer re-test notices), the template checked against what the
 * code reads, and every function's bundle run from its asset folder alone under Node.js 24 with
 * the template's environment and each schedule's input, against the sandbox and the local AWS
 * stand-ins: each poller completes its runs, the digest and the report reach their recipients.
 * The three run side by side, each in a world of its own (sandbox, DynamoDB, EventBridge, SES):
 * a run is mostly the pollers keeping to the service's rate (the results poller's first run spends
 * its 90 s backfill slice at half of it), not work, so three at once take as long as the longest.
 */
type Json = ReturnType<typeof JSON.parse>;
const SIZE = { customers: 6, devices: 80 };

const commands = {
	one: deployCommand(),
	several: accountsCommand(),
	email: [...deployCommand(), ['recipients', readmeSetting('recipients')], ['customerNotices', readmeSetting('customerNotices')]] as Array<[string, string]>,
};
type Command = keyof typeof commands;
const stacks = {} as Record<Command, Synthesized>;
/** The several accounts' ids, in the order of docs/alerts.md's accounts.json. */
const severalIds = () => (JSON.parse(commands.several.accountsJson) as Array<{ id: string }>).map((a) => a.id);
/** Each command's world: how many accounts the sandbox serves, and each account's token by its id. */
const worlds: Record<Command, { accounts: number; tokens: (world: World) => Record<string, string> }> = {
	one: { accounts: 1, tokens: (w) => ({ default: w.sandbox.sandboxToken }) },
	several: { accounts: 2, tokens: (w) => Object.fromEntries(severalIds().map((id, i) => [id, w.sandbox.accounts[i].token])) },
	email: { accounts: 1, tokens: (w) => ({ default: w.sandbox.sandboxToken }) },
};
/** Each stack's run as deployed, started as soon as it is synthesized; its describe block awaits it. */
const deployed = {} as Record<Command, Promise<{ world: World; run: Run }>>;
function deploy(command: Command): Promise<{ world: World; run: Run }> {
	const started = (async () => {
		const world = await startWorld(SIZE, worlds[command].accounts);
		try {
			return { world, run: await runDeployment(stacks[command], world, worlds[command].tokens(world)) };
		} catch (error) {
			await world.stop();
			throw error;
		}
	})();
	// Awaited (and its failure reported) by the command's describe block, not here.
	started.catch(() => undefined);
	return started;
}
const bundles = mkdtempSync(join(tmpdir(), 'tec-readme-bundles-'));

beforeAll(async () => {
	node24();
	// The several accounts' stack first, whose run is the longest (the results poller's slice for each
	// account). Its synth bundles every function as `cdk deploy` does; the other two synths take those
	// bundles (the same code: infra/bundleCache.ts checks every input), side by side while it runs.
	stacks.several = await synthesize(commands.several.context, { 'accounts.json': commands.several.accountsJson }, bundles);
	deployed.several = deploy('several');
	const [one, email] = await Promise.all([synthesize(commands.one, {}, bundles), synthesize(commands.email, {}, bundles)]);
	Object.assign(stacks, { one, email });
	deployed.one = deploy('one');
	deployed.email = deploy('email');
}, 300_000);
afterAll(async () => {
	for (const run of Object.values(deployed)) await (await run.catch(() => undefined))?.world.stop();
	for (const s of Object.values(stacks)) rmSync(s.outdir, { recursive: true, force: true });
	rmSync(bundles, { recursive: true, force: true });
	disposeRuntime();
}, 300_000);

const addresses = (list: string) => list.split(/[,;\s]+/).filter(Boolean);
/** Who did get mail, for the failure message. */
const mailedTo = (run: Run) => `mail went to: ${[...new Set(run.mail.flatMap((m) => m.to))].join(', ') || 'nobody'}`;
const fnsOf = (s: Synthesized, service: string) => s.ofType('AWS::Lambda::Function').filter(([, r]) => r.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === service).map(([id]) => id);
const emailEnv = (s: Synthesized) => fnsOf(s, 'email').map((id) => s.fn(id).environment);
/** The accounts the pollers poll: the one of the environment, or each schedule's input's. */
function polled(s: Synthesized): Array<{ id: string; environment: string }> {
	const inputs = s.ofType('AWS::Scheduler::Schedule').map(([, r]) => s.resolve(r.Properties.Target.Input)).filter((i): i is string => typeof i === 'string').map((i) => JSON.parse(i) as Json);
	const several = inputs.filter((i) => i.account).map((i) => ({ id: i.account.id as string, environment: i.account.environment as string }));
	if (several.length > 0) return [...new Map(several.map((a) => [a.id, a])).values()];
	const environments = [...new Set(fnsOf(s, 'pollers').map((id) => s.fn(id).environment.TEC_ENVIRONMENT))];
	return environments.map((environment) => ({ id: 'default', environment }));
}
/** The environment an e-mail function reads an account's state under: its own per account, else the function's. */
function emailEnvironmentOf(env: Record<string, string>, account: string): string | undefined {
	const routing = env.ACCOUNTS_ROUTING ? (JSON.parse(env.ACCOUNTS_ROUTING) as Array<{ account: string; environment?: string }>) : [];
	return routing.find((r) => r.account === account)?.environment ?? env.TEC_ENVIRONMENT;
}

/** The template's checks every command must pass: what the e-mail functions, alarms and schedules read is what the code writes. */
function templateChecks(name: keyof typeof commands) {
	const s = () => stacks[name];
	it('the e-mail functions read each account under the environment its pollers write it under', () => {
		for (const a of polled(s())) for (const env of emailEnv(s())) expect({ account: a.id, environment: emailEnvironmentOf(env, a.id) }).toEqual({ account: a.id, environment: a.environment });
	});

	it('every schedule invokes a function of the stack, and with several accounts each account has a schedule for each poller', () => {
		const schedules = s().ofType('AWS::Scheduler::Schedule').map(([, r]) => ({ fn: s().targetOf(r.Properties.Target.Arn), input: s().resolve(r.Properties.Target.Input) as string | undefined }));
		const pollers = fnsOf(s(), 'pollers');
		const accounts = polled(s());
		for (const fn of pollers) {
			const inputs = schedules.filter((x) => x.fn === fn).map((x) => (x.input ? (JSON.parse(x.input) as Json).account?.id : 'default'));
			expect(inputs.sort()).toEqual(accounts.map((a) => a.id).sort());
		}
	});
}

/** The metrics the stack's alarms read, outside AWS's own namespaces: namespace, name and dimensions as one key. */
function alarmedMetrics(s: Synthesized): Array<{ alarm: string; key: string }> {
	const read: Array<{ alarm: string; key: string }> = [];
	for (const [id, alarm] of s.ofType('AWS::CloudWatch::Alarm')) {
		const p = s.resolve(alarm.Properties);
		const stats = p.Namespace ? [{ Namespace: p.Namespace, MetricName: p.MetricName, Dimensions: p.Dimensions ?? [] }] : (p.Metrics ?? []).filter((m: Json) => m.MetricStat).map((m: Json) => m.MetricStat.Metric);
		for (const m of stats) {
			if (String(m.Namespace).startsWith('AWS/')) continue;
			read.push({ alarm: id, key: JSON.stringify([m.Namespace, m.MetricName, (m.Dimensions ?? []).map((d: Json) => [d.Name, d.Value]).sort()]) });
		}
	}
	return read;
}
const metricKey = (m: Run['metrics'][number]) => JSON.stringify([m.namespace, m.name, Object.entries(m.dimensions).sort()]);

/** Alarms on the code's own metrics read what the runs emitted (name, namespace, every dimension). */
function alarmsReadEmittedMetrics(s: Synthesized, run: Run): string[] {
	const emitted = new Set(run.metrics.map(metricKey));
	return alarmedMetrics(s)
		.filter((r) => !emitted.has(r.key))
		.map((r) => `${r.alarm} reads ${r.key}, which no run emitted`);
}

/**
 * Every poller's heartbeat is watched: each complete run's RunCompleted, with the account where it
 * carries one (several accounts), is read by an alarm, so no poller of no account can fall silent unseen.
 */
function heartbeatsUnwatched(s: Synthesized, run: Run): string[] {
	const read = new Set(alarmedMetrics(s).map((r) => r.key));
	const beats = run.metrics.filter((m) => m.name === 'RunCompleted');
	const mostSpecific = beats.filter((m) => m.dimensions.account !== undefined || !beats.some((o) => o.dimensions.account !== undefined && o.dimensions.poller === m.dimensions.poller));
	return [...new Set(mostSpecific.map(metricKey))].filter((k) => !read.has(k)).map((k) => `no alarm reads ${k}`);
}

describe("docs/aws-deployment.md's one-account command (`npx cdk deploy -c environment=production -c baseUrl=… -c alertEmails=…`)", () => {
	templateChecks('one');
	it('sends the alert e-mails to alertEmails, as its table says ("everything to alertEmails" without recipients)', () => {
		const alertEmails = addresses(stacks.one.context.alertEmails);
		for (const env of emailEnv(stacks.one)) expect((JSON.parse(env.EMAIL_SETTINGS) as Json).recipients.default).toEqual(alertEmails);
	});

	describe('run as deployed', () => {
		let run: Run;
		beforeAll(async () => {
			({ run } = await deployed.one);
		}, 300_000);

		it('every invocation succeeds and each poller completes its run', () => {
			expect(failures(run)).toEqual([]);
			for (const id of fnsOf(stacks.one, 'pollers')) expect(run.invoked[id].results.map((r) => r.ok && (r.value as Json).complete)).toEqual([true]);
			expect(run.delivered.length).toBeGreaterThan(0);
		});

		it('the digest and the compliance report reach alertEmails', () => {
			for (const address of addresses(stacks.one.context.alertEmails)) {
				const mine = run.mail.filter((m) => m.to.includes(address)).map((m) => m.subject);
				expect(mine, `${address} (${mailedTo(run)})`).toContainEqual(expect.stringMatching(/^Calibration digest /));
				expect(mine, `${address} (${mailedTo(run)})`).toContainEqual(expect.stringMatching(/^Calibration compliance /));
			}
		});

		it('each alarm on the code\'s metrics reads one the functions emit, and each poller\'s heartbeat is watched', () => {
			expect(alarmsReadEmittedMetrics(stacks.one, run)).toEqual([]);
			expect(heartbeatsUnwatched(stacks.one, run)).toEqual([]);
			// Each of the four pollers completes a run, and the digest (service email, no poller): both heartbeats beat.
			expect([...new Set(run.metrics.filter((m) => m.name === 'RunCompleted').map((m) => m.dimensions.poller ?? m.dimensions.service))].sort()).toEqual(['dueDates', 'dueSoon', 'email', 'overdueDevices', 'testResults']);
		});
	});
});

describe("docs/alerts.md's several-accounts command (`npx cdk deploy -c accounts=accounts.json -c alertEmails=… -c mailFrom=…`)", () => {
	templateChecks('several');
	/** Each account's recipients: its own, else the deployment's (alertEmails, the command giving no recipients). */
	const expected = () => {
		const alertEmails = addresses(stacks.several.context.alertEmails);
		return (JSON.parse(commands.several.accountsJson) as Array<{ id: string; recipients?: { default: string[] } }>).map((a) => ({ id: a.id, to: a.recipients?.default ?? alertEmails }));
	};
	it("routes each account to its own recipients, else to alertEmails", () => {
		for (const env of emailEnv(stacks.several)) {
			const routing = JSON.parse(env.ACCOUNTS_ROUTING) as Array<{ account: string; recipients?: Json }>;
			const deployment = (JSON.parse(env.EMAIL_SETTINGS) as Json).recipients;
			expect(expected().map((a) => ({ id: a.id, to: (routing.find((r) => r.account === a.id)?.recipients ?? deployment).default }))).toEqual(expected());
		}
	});

	describe('run as deployed', () => {
		let run: Run;
		beforeAll(async () => {
			({ run } = await deployed.several);
		}, 300_000);

		it('every invocation succeeds and each poller completes a run for each account', () => {
			expect(failures(run)).toEqual([]);
			for (const id of fnsOf(stacks.several, 'pollers')) expect(run.invoked[id].results.map((r) => r.ok && (r.value as Json).complete)).toEqual(expected().map(() => true));
			for (const a of expected()) expect(run.delivered.filter((e) => e.detail.metadata.account === a.id).length, a.id).toBeGreaterThan(0);
		});

		it("each account's digest and compliance report reach its recipients", () => {
			for (const a of expected()) {
				for (const address of a.to) {
					const mine = run.mail.filter((m) => m.to.includes(address)).map((m) => m.subject);
					expect(mine, `${a.id}: ${address} (${mailedTo(run)})`).toContainEqual(expect.stringMatching(/^Calibration digest /));
					expect(mine, `${a.id}: ${address} (${mailedTo(run)})`).toContainEqual(expect.stringMatching(/^Calibration compliance /));
				}
			}
		});

		it('each alarm on the code\'s metrics reads one the functions emit', () => {
			expect(alarmsReadEmittedMetrics(stacks.several, run)).toEqual([]);
		});

		it("every poller of every account has its heartbeat watched by an alarm", () => {
			expect(heartbeatsUnwatched(stacks.several, run)).toEqual([]);
			for (const a of expected()) expect([...new Set(run.metrics.filter((m) => m.name === 'RunCompleted' && m.dimensions.account === a.id).map((m) => m.dimensions.poller))].sort(), a.id).toEqual(['dueDates', 'dueSoon', 'overdueDevices', 'testResults']);
		});
	});
});

describe("the deploy command with docs/emails.md's e-mail routing and customer re-test notices (`-c recipients='…' -c customerNotices='…'`)", () => {
	templateChecks('email');
	it('hands the e-mail functions the routing of the command', () => {
		for (const env of emailEnv(stacks.email)) expect((JSON.parse(env.EMAIL_SETTINGS) as Json).recipients).toMatchObject(JSON.parse(readmeSetting('recipients')));
	});

	describe('run as deployed', () => {
		let run: Run;
		const recipients = JSON.parse(readmeSetting('recipients')) as { default: string[]; escalation: { to: string[] } };
		beforeAll(async () => {
			({ run } = await deployed.email);
		}, 300_000);

		it('every invocation succeeds and each poller completes its run', () => {
			expect(failures(run)).toEqual([]);
			for (const id of fnsOf(stacks.email, 'pollers')) expect(run.invoked[id].results.map((r) => r.ok && (r.value as Json).complete)).toEqual([true]);
		});

		it('the digest and the report reach the default list, the digest the escalation list, a failed test its e-mail at once', () => {
			for (const address of recipients.default) {
				const mine = run.mail.filter((m) => m.to.includes(address)).map((m) => m.subject);
				expect(mine, address).toContainEqual(expect.stringMatching(/^Calibration digest /));
				expect(mine, address).toContainEqual(expect.stringMatching(/^Calibration compliance /));
			}
			for (const address of recipients.escalation.to) expect(run.mail.filter((m) => m.to.includes(address)).map((m) => m.subject), address).toContainEqual(expect.stringMatching(/^Calibration digest /));
			const failed = run.delivered.filter((e) => e['detail-type'] === 'Test Result Failed').length;
			expect(run.mail.filter((m) => m.subject.startsWith('Test failed')).length).toBe(failed * recipients.default.length);
		});

		it('the re-test notices reach the customers with a contact address, in the subject the settings give', () => {
			const notices = run.mail.filter((m) => / devices due in /.test(m.subject));
			expect(notices.length).toBeGreaterThan(0);
			for (const n of notices) expect(n.to).toEqual([expect.stringMatching(/^facilities@customer\d+\.example$/)]);
			expect(notices.flatMap((n) => n.to)).not.toContain('facilities@customer5.example');
		});

		it('each alarm on the code\'s metrics reads one the functions emit', () => {
			expect(alarmsReadEmittedMetrics(stacks.email, run)).toEqual([]);
		});
	});
});
