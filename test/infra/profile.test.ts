import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../infra/config';
import { readConfig } from '../../lambdas/config';
import { VARIANTS, variantFile } from '../support/profiles';
import { BASE_CONFIG, synth } from './synth';

/** CDK context `serviceProfile` (a file): checked at synth with every face's messages, handed to the pollers. */

function refusal(serviceProfile: string): string {
	try {
		parseConfig({ ...BASE_CONFIG, serviceProfile });
	} catch (error) {
		expect(error).toBeInstanceOf(ConfigError);
		return (error as Error).message;
	}
	throw new Error('accepted');
}

describe('serviceProfile (CDK context)', () => {
	const dir = mkdtempSync(join(tmpdir(), 'tec-infra-profile-'));
	const file = (name: string, content: string) => {
		writeFileSync(join(dir, name), content);
		return join(dir, name);
	};

	it('a bad profile is refused at synth, naming the key path and what is allowed', () => {
		expect(refusal(file('unknown.json', '{"paging": {"pageSize": 10}}'))).toContain('service profile: paging.pageSize: is not a key of the service profile; allowed here: style');
		expect(refusal(file('scheme.json', '{"operations": {"device.list": {"path": "https://x.example/"}}}'))).toContain('service profile: operations.device.list.path: must be a path under /api/v1');
		expect(refusal(file('not-json.json', '{'))).toContain('service profile: is not JSON');
		expect(refusal(join(dir, 'missing.json'))).toContain('service profile: cannot read the file');
	});

	it('every poller gets the keys that differ from the defaults, and reads back the same profile', () => {
		const { json } = synth({ ...BASE_CONFIG, serviceProfile: variantFile('page-numbers') });
		const envs = Object.values(json.Resources as Record<string, { Type: string; Properties: { Environment?: { Variables: Record<string, string> } } }>)
			.filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables.TEC_BASE_URL !== undefined)
			.map((r) => r.Properties.Environment!.Variables);
		// The four pollers: overdue devices, due soon, test results, due dates.
		expect(envs.length).toBe(4);
		for (const env of envs) {
			expect(JSON.parse(env.TEC_SERVICE_PROFILE)).toMatchObject({ paging: { style: 'pageNumber', maxPageSize: 200 }, properties: { nextTestDate: { names: ['Calibration due'] } } });
			const config = readConfig({ ...env, TEC_TOKEN_SECRET_ARN: 'arn:x', STATE_TABLE: 't', EVENT_BUS_NAME: 'b' });
			expect(config.TEC_SERVICE_PROFILE).toEqual(VARIANTS['page-numbers']);
		}
		expect(() => readConfig({ TEC_BASE_URL: 'https://tec.example.com', TEC_TOKEN_SECRET_ARN: 'a', STATE_TABLE: 't', EVENT_BUS_NAME: 'b', TEC_SERVICE_PROFILE: '{"paging":{"maxPageSize":0}}' })).toThrow(
			/TEC_SERVICE_PROFILE: service profile: paging.maxPageSize: must be a whole number from 1 to 10000, got 0/,
		);
	}, 120_000);
});
