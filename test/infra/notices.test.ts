import { describe, expect, it } from 'vitest';
import { BASE_CONFIG, synth, type Synth } from './synth';

// Synthesised with cdk-nag's checks registered (synth() throws on an unacknowledged finding).
type Json = ReturnType<typeof JSON.parse>;
const resources = (x: Synth) => x.json.Resources as Record<string, { Type: string; Properties: Record<string, Json> }>;
const statementsOf = (x: Synth, fnId: string) => {
	const roleId = resources(x)[fnId].Properties.Role['Fn::GetAtt'][0] as string;
	return Object.values(resources(x))
		.filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((y: Json) => y.Ref === roleId))
		.flatMap((r) => r.Properties.PolicyDocument.Statement as Array<{ Sid?: string; Action: unknown }>);
};

describe('the customer re-test notices on AWS', () => {
	it('enabled: the digest function gets the account and may read its token; the collector does not', () => {
		const s = synth({ ...BASE_CONFIG, customerNotices: JSON.stringify({ enabled: true, replyTo: 'booking@lab.example.com' }) }, 'NoticesOn');
		const digest = s.id(s.stack.email.digest);
		const collector = s.id(s.stack.email.collector);
		const vars = resources(s)[digest].Properties.Environment.Variables;
		expect(vars.TEC_BASE_URL).toBe(BASE_CONFIG.baseUrl);
		expect(vars.TEC_TOKEN_SECRET_ARN).toBeDefined();
		expect(JSON.parse(vars.EMAIL_SETTINGS).customerNotices).toMatchObject({ enabled: true, replyTo: 'booking@lab.example.com' });
		expect(statementsOf(s, digest).some((st) => st.Sid === 'ReadAccessToken' && st.Action === 'secretsmanager:GetSecretValue')).toBe(true);
		expect(resources(s)[collector].Properties.Environment.Variables.TEC_TOKEN_SECRET_ARN).toBeUndefined();
		expect(statementsOf(s, collector).some((st) => st.Sid === 'ReadAccessToken')).toBe(false);
	});

	it('off (the default): the digest function has no token', () => {
		const s = synth({ ...BASE_CONFIG }, 'NoticesOff');
		const digest = s.id(s.stack.email.digest);
		expect(resources(s)[digest].Properties.Environment.Variables.TEC_TOKEN_SECRET_ARN).toBeUndefined();
		expect(statementsOf(s, digest).some((st) => st.Sid === 'ReadAccessToken')).toBe(false);
	});
});
