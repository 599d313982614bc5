import { describe, expect, it } from 'vitest';
import { readConfig } from '../../lambdas/config';
import { readEmailEnv } from '../../lambdas/email/env';
import { readEmailEvent } from '../../lambdas/email/events';

/** A function's configuration or event that is wrong says which variable or field, and what would do. */
const poller = { TEC_BASE_URL: 'https://tec.example.com', TEC_TOKEN_SECRET_ARN: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:t', STATE_TABLE: 'tec-state', EVENT_BUS_NAME: 'tec-alerts' };
const email = { STATE_TABLE: 'tec-state', EMAIL_SETTINGS: JSON.stringify({ mailFrom: 'alerts@lab.test', recipients: { default: ['ops@lab.test'] } }) };

describe('messages that name the variable or field', () => {
	it('an empty STATE_TABLE or EVENT_BUS_NAME (pollers) is named, not "Too small"', () => {
		expect(() => readConfig({ ...poller, STATE_TABLE: '' })).toThrow(/STATE_TABLE is required: the DynamoDB state table/);
		expect(() => readConfig({ ...poller, EVENT_BUS_NAME: '' })).toThrow(/EVENT_BUS_NAME is required: the EventBridge bus to publish to/);
		expect(() => readConfig({ ...poller, STATE_TABLE: '', EVENT_BUS_NAME: '' })).not.toThrow(/Too small/);
	});

	it("the e-mail functions' empty STATE_TABLE and EMAIL_SETTINGS are named", () => {
		expect(() => readEmailEnv({ ...email, STATE_TABLE: '' })).toThrow(/STATE_TABLE is required: the DynamoDB state table/);
		expect(() => readEmailEnv({ ...email, EMAIL_SETTINGS: '' })).toThrow(/EMAIL_SETTINGS is required/);
	});

	it('ACCOUNTS_ROUTING that is not a list names the variable and what it should hold', () => {
		expect(() => readEmailEnv({ ...email, ACCOUNTS_ROUTING: '{}' })).toThrow(/ACCOUNTS_ROUTING: expected a JSON array of \{"account", "environment", "recipients"\}/);
		expect(() => readEmailEnv({ ...email, ACCOUNTS_ROUTING: '[{"account": ""}]' })).toThrow(/ACCOUNTS_ROUTING: \[0\]\.account: /);
	});

	it('BACKFILL_SHARE under 0.05 (one request per 4.1 s, a device’s 5 reads in a slice) is refused, naming the variable and the valid range; 0.05 and 0 (no backfill) are taken', () => {
		for (const bad of ['0.001', '0.00000001', '0.049', '-1', '1.5']) expect(() => readConfig({ ...poller, BACKFILL_SHARE: bad })).toThrow(`BACKFILL_SHARE must be 0 (off) or a share from 0.05 to at most 1 (for example "0.5"), got "${bad}"`);
		expect(readConfig({ ...poller, BACKFILL_SHARE: '0.05' }).BACKFILL_SHARE).toBe(0.05);
		expect(readConfig({ ...poller, BACKFILL_SHARE: '0' }).BACKFILL_SHARE).toBe(0);
	});

	it('an event without detail names "detail"', () => {
		expect(() => readEmailEvent({ source: 'test-equipment-cloud', 'detail-type': 'Device Overdue' })).toThrow(/^The "Device Overdue" event does not match its schema: detail: /);
	});
});
