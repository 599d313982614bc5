import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_ID, AccountsError, parseAccounts, readAccountsFile, singleAccount, tokensFromEnv } from '../../lambdas/accounts';

const recipients = { default: ['lab@example.com'], customers: {}, departments: {} };
const account = (id: string, extra: Record<string, unknown> = {}) => ({ id, environment: 'sandbox', baseUrl: 'https://tec.example.com', tokenEnv: `TOKEN_${id.replaceAll('-', '_').toUpperCase()}`, ...extra });
const parse = (input: unknown, extra: Record<string, unknown> = {}) => parseAccounts(input, { source: 'test', defaultRecipients: recipients, ...extra });

function refused(input: unknown, extra: Record<string, unknown> = {}): string {
	try {
		parse(input, extra);
	} catch (error) {
		expect(error).toBeInstanceOf(AccountsError);
		return (error as Error).message;
	}
	throw new Error('expected the accounts to be refused');
}

describe('the accounts list', () => {
	it('reads a list; with several accounts each carries its id into events and its partition', () => {
		const list = parse([account('site-a', { dueSoonDays: [30, 0, 7], reminderDays: 3 }), account('default'), account('site-b', { recipients: { default: ['b@example.com'] } })]);
		expect(list.map((a) => [a.id, a.account, a.partition])).toEqual([
			['site-a', 'site-a', 'site-a'],
			// The id of the single-account settings keeps their state and keys when more accounts join.
			['default', 'default', undefined],
			['site-b', 'site-b', 'site-b'],
		]);
		expect(list[0]).toMatchObject({ dueSoonStages: [30, 7], reminderDays: 3, recipients: undefined });
		expect(list[2].recipients).toEqual({ default: ['b@example.com'], customers: {}, departments: {} });
	});

	it('a list of one is a single-account setup: no account in events, no partition', () => {
		const [one] = parse([account('site-a')]);
		expect(one.account).toBeUndefined();
		expect(one.partition).toBeUndefined();
		expect(singleAccount({ environment: 'production', baseUrl: 'https://tec.example.com', tokenEnv: 'TEC_TOKEN' })).toEqual([
			{ id: 'default', environment: 'production', baseUrl: 'https://tec.example.com', tokenEnv: 'TEC_TOKEN' },
		]);
	});

	it('refuses a duplicate id (whatever its case), naming both', () => {
		expect(refused([account('site-a'), account('Site-A', { tokenEnv: 'OTHER' })])).toContain('accounts "site-a" and "Site-A": id: listed twice');
	});

	it('refuses an id with other characters, naming the account and the key', () => {
		expect(refused([account('site a')])).toContain('accounts[0] "site a": id: only letters, digits and "-"');
		expect(refused([account('-x')])).toContain('accounts[0] "-x": id:');
		expect(refused([{ ...account('x'), id: 3 }])).toContain('accounts[0]: id: required');
	});

	it('refuses two accounts on one token (they would share 5 requests per second), naming both', () => {
		expect(refused([account('a', { tokenEnv: 'T' }), account('b', { tokenEnv: 'T' })])).toContain('accounts "a" and "b": tokenEnv: the same token for two accounts');
		const arn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:tec-a';
		expect(refused([account('a', { tokenSecretArn: arn }), account('b', { tokenSecretArn: arn })])).toContain('accounts "a" and "b": tokenSecretArn: the same token');
		expect(() => tokensFromEnv(parse([account('a'), account('b')]), { TOKEN_A: 'abc', TOKEN_B: ' abc ' })).toThrow('accounts "a" and "b": tokenEnv: TOKEN_A and TOKEN_B hold the same token');
	});

	it('refuses a missing environment variable, naming the account and the key', () => {
		const list = parse([account('a'), account('b')]);
		expect(() => tokensFromEnv(list, { TOKEN_A: 'abc' })).toThrow('account "b": tokenEnv: the environment variable TOKEN_B is not set');
		expect(tokensFromEnv(list, { TOKEN_A: 'abc', TOKEN_B: 'def' })).toEqual(new Map([['a', 'abc'], ['b', 'def']]));
		expect(refused([{ ...account('a'), tokenEnv: undefined }], { needTokenEnv: true })).toContain('accounts[0] "a": tokenEnv: required');
	});

	it('refuses an account without recipients where no default exists, naming the account', () => {
		expect(refused([account('a', { recipients: { default: ['a@example.com'] } }), account('b')], { defaultRecipients: undefined })).toContain('accounts[1] "b": recipients: required');
		expect(refused([account('a', { recipients: { default: ['not an address'] } })])).toContain('accounts[0] "a": recipients.default: "not an address" is not an e-mail address');
	});

	it('names unknown keys, bad URLs, http on AWS and a list that is no list', () => {
		expect(refused([account('a', { token: 'x' })])).toContain('accounts[0] "a": unknown key "token"');
		expect(refused([account('a', { baseUrl: 'ftp://x' })])).toContain('accounts[0] "a": baseUrl: must use https');
		expect(refused([account('a', { baseUrl: 'http://127.0.0.1:8787' })], { httpsOnly: true })).toContain('accounts[0] "a": baseUrl: must use https (the Lambda functions');
		expect(parse([account('a', { baseUrl: 'http://127.0.0.1:8787' })])[0].baseUrl).toBe('http://127.0.0.1:8787');
		expect(refused({ id: 'a' })).toContain('expected a JSON array of one or more accounts');
		expect(refused([])).toContain('expected a JSON array');
	});

	it('an account may have its own service profile, checked by the profile schema and merged over the defaults', () => {
		const [one] = parse([account('a', { profile: { paging: { maxPageSize: 500 } } })]);
		expect(one.profile?.paging.maxPageSize).toBe(500);
		expect(one.profile?.paging.style).toBe('limitOffset');
		expect(one.profileInput).toEqual({ paging: { maxPageSize: 500 } });
		expect(refused([account('a', { profile: { paging: { maxPageSize: 0 } } })])).toMatch(/accounts\[0\] "a": profile.*paging\.maxPageSize: must be/);
		expect(refused([account('a', { profile: { pagin: {} } })])).toMatch(/accounts\[0\] "a": profile: .*pagin/);
	});

	it('reads a file, and names a missing file or bad JSON', () => {
		const dir = mkdtempSync(join(tmpdir(), 'tec-accounts-'));
		writeFileSync(join(dir, 'ok.json'), JSON.stringify([account('a'), account('b')]));
		writeFileSync(join(dir, 'bad.json'), '[{');
		expect(readAccountsFile(join(dir, 'ok.json'), { defaultRecipients: recipients }).map((a) => a.id)).toEqual(['a', 'b']);
		expect(() => readAccountsFile(join(dir, 'bad.json'), {})).toThrow(/bad\.json is not JSON/);
		expect(() => readAccountsFile(join(dir, 'none.json'), {})).toThrow(/none\.json does not exist/);
	});

	it('ids: any short name of letters, digits and inner "-" is taken; any other character is refused (property)', () => {
		const char = fc.constantFrom(...'abcxyzABCXYZ0189');
		fc.assert(
			fc.property(fc.array(fc.oneof(char, fc.constant('-')), { minLength: 0, maxLength: 30 }), char, char, (inner, first, last) => {
				const id = `${first}${inner.join('')}${last}`;
				expect(parse([account(id)])[0].id).toBe(id);
			}),
		);
		fc.assert(
			fc.property(fc.string({ minLength: 1, maxLength: 10 }), fc.string({ minLength: 1, maxLength: 3 }).filter((s) => /[^A-Za-z0-9-]/.test(s)), (base, bad) => {
				const id = `a${base}${bad}`;
				expect(ACCOUNT_ID.test(id)).toBe(false);
				expect(refused([account('a', { id })])).toContain(': id: only letters, digits and "-"');
			}),
		);
	});
});
