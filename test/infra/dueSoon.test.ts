import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../infra/config';
import { BASE_CONFIG, synth } from './synth';

const s = synth({ ...BASE_CONFIG, dueSoonDays: '60, 14' }, 'TestEquipmentCloudAlertsDueSoon');
type Json = ReturnType<typeof JSON.parse>;
const fn = () => (s.json.Resources as Record<string, { Properties: Json }>)[s.id(s.stack.pollers.dueSoon)].Properties;

describe('the Device Due Soon poller in the stack', () => {
	it('gets the configured lead stages; without them the pollers keep their default', () => {
		expect(fn().Environment.Variables.DUE_SOON_DAYS).toBe('60,14');
		expect(fn().Handler).toBe('index.handler');
		expect(parseConfig({ ...BASE_CONFIG }).dueSoonDays).toBeUndefined();
		expect(parseConfig({ ...BASE_CONFIG, dueSoonDays: [30, 7] }).dueSoonDays).toBe('30,7');
		expect(() => parseConfig({ ...BASE_CONFIG, dueSoonDays: 'soon' })).toThrow(/dueSoonDays must be whole days separated by commas, like 30,7/);
	});

	it('runs on its own schedule, offset from the other pollers', () => {
		s.template.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'cron(1/5 * * * ? *)', Target: { Arn: { 'Fn::GetAtt': [s.id(s.stack.pollers.dueSoon), 'Arn'] } } });
	});
});
