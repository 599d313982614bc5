import { describe, expect, it } from 'vitest';
import { allRecipients, localeOf, parseEmailSettings, route, type Routable } from '../../lambdas/email/settings';

const settings = parseEmailSettings(
	{
		mailFrom: 'Calibration alerts <alerts@lab.example.com>',
		recipients: {
			default: ['maintenance@example.com'],
			customers: { 'Acme Instruments': ['custodian@acme.example'], 'Birch Medical': 'birch@example.com, birch-2@example.com' },
			departments: { 'Calibration Lab': ['lab@example.com'], ICU: ['icu@example.com'] },
			escalation: { afterDays: 30, to: ['Manager@Example.com'] },
		},
	},
	'test',
);
const r = settings.recipients;
const dev = (customerName: string | null, department: string | null, daysOverdue: number | null = 3): Routable => ({ customerName, department, daysOverdue });

describe('routing: each device goes to the lists that match it', () => {
	it.each([
		['customer only', dev('Acme Instruments', 'Workshop'), ['custodian@acme.example']],
		['department only', dev('Other Co', 'ICU'), ['icu@example.com']],
		['both match: both lists', dev('Acme Instruments', 'Calibration Lab'), ['custodian@acme.example', 'lab@example.com']],
		['neither: the default list', dev('Other Co', 'Workshop'), ['maintenance@example.com']],
		['no customer, no department: the default list', dev(null, null), ['maintenance@example.com']],
		['names match whatever their case and spacing', dev('  acme   INSTRUMENTS ', 'icu'), ['custodian@acme.example', 'icu@example.com']],
		['a list given as a comma-separated string', dev('Birch Medical', null), ['birch-2@example.com', 'birch@example.com']],
		['overdue exactly N days: not escalated', dev('Acme Instruments', null, 30), ['custodian@acme.example']],
		['overdue more than N days: also the escalation list', dev('Acme Instruments', null, 31), ['custodian@acme.example', 'manager@example.com']],
		['escalation adds to the default list too', dev(null, null, 400), ['maintenance@example.com', 'manager@example.com']],
		['unknown days overdue: not escalated', dev(null, null, null), ['maintenance@example.com']],
	])('%s', (_, device, expected) => {
		expect(route(r, device)).toEqual(expected);
	});

	it('an address on two matching lists gets the device once', () => {
		const s = parseEmailSettings({ mailFrom: 'a@example.com', recipients: { customers: { A: ['x@example.com'] }, departments: { D: ['x@example.com'] } } }, 'test');
		expect(route(s.recipients, dev('A', 'D'))).toEqual(['x@example.com']);
	});

	it('the digest goes through every address named anywhere, once', () => {
		expect(allRecipients(r)).toEqual(['birch-2@example.com', 'birch@example.com', 'custodian@acme.example', 'icu@example.com', 'lab@example.com', 'maintenance@example.com', 'manager@example.com']);
	});

	it('defaults: digest at 7, immediate e-mails for failed tests on', () => {
		expect(settings.digestHour).toBe(7);
		expect(settings.immediateFailedTests).toBe(true);
	});

	it('values from cdk -c arrive as strings: recipients as JSON, numbers and booleans as text', () => {
		const s = parseEmailSettings({ mailFrom: 'a@example.com', digestHour: '18', immediateFailedTests: 'false', recipients: '{"default":["x@example.com"]}' }, 'test');
		expect(s).toMatchObject({ digestHour: 18, immediateFailedTests: false, recipients: { default: ['x@example.com'] } });
	});
});

describe('addresses as SES takes them (7-bit ASCII)', () => {
	it('a recipient whose domain has umlauts is sent to in Punycode (its language found by either form); one whose local part is not ASCII is refused, naming where', () => {
		const s = parseEmailSettings({ mailFrom: 'alerts@example.com', recipients: { default: ['Wartung@Müller.example'], locales: { 'wartung@müller.example': 'de' } } }, 'test');
		expect(s.recipients.default).toEqual(['wartung@xn--mller-kva.example']);
		expect(localeOf(s, 'wartung@xn--mller-kva.example')).toBe('de');
		expect(() => parseEmailSettings({ mailFrom: 'alerts@example.com', recipients: { default: ['jörg@lab.example'] } }, 'test')).toThrow(/recipients\.default.*"jörg@lab\.example".*7-bit ASCII/);
	});
});

describe('bad settings: one error naming each field and what would be valid', () => {
	const bad = (input: Record<string, unknown>) => {
		try {
			parseEmailSettings({ mailFrom: 'alerts@example.com', recipients: { default: ['ops@example.com'] }, ...input }, 'cdk.json context');
		} catch (error) {
			return (error as Error).message;
		}
		throw new Error('accepted');
	};

	it.each([
		[{ mailFrom: undefined }, /mailFrom is required: the sender address verified in Amazon SES/],
		[{ mailFrom: 'not an address' }, /mailFrom: "not an address" is not an address; expected alerts@lab\.example\.com/],
		[{ digestHour: 24 }, /digestHour must be a whole hour from 0 to 23/],
		[{ digestHour: 'seven' }, /digestHour must be a whole hour from 0 to 23/],
		[{ immediateFailedTests: 'yes' }, /immediateFailedTests must be true or false/],
		[{ recipients: { default: ['ops@'] } }, /recipients\.default: "ops@" is not an e-mail address/],
		[{ recipients: { customers: { Acme: ['x'] } } }, /recipients\.customers\["Acme"\]: "x" is not an e-mail address/],
		[{ recipients: { departments: ['x@example.com'] } }, /recipients\.departments: expected an object of name → addresses/],
		[{ recipients: { default: ['a@example.com'], escalation: { afterDays: 0, to: ['m@example.com'] } } }, /recipients\.escalation\.afterDays: expected a whole number of days from 1 to 3650/],
		[{ recipients: { default: ['a@example.com'], escalation: { afterDays: 5, to: [] } } }, /recipients\.escalation\.to: at least one address/],
		[{ recipients: {} }, /recipients: give at least a default list/],
		[{ recipients: { default: ["a@example.com"], defaults: [] } }, /recipients: unknown "defaults"; valid keys are default, customers, departments, escalation/],
		[{ recipients: '{not json' }, /recipients: expected an object/],
		[{ recipients: { customers: { Acme: ['a@example.com'], ' ACME ': ['b@example.com'] } } }, /recipients.customers: " ACME " is listed twice/],
	])('%j', (input, message) => {
		const text = bad(input);
		expect(text).toMatch(/^The e-mail settings \(cdk\.json context\) are not valid:\n {2}- /);
		expect(text).toMatch(message);
	});

	it('lists every problem at once', () => {
		const text = bad({ mailFrom: 'x', digestHour: -1 });
		expect(text.split('\n  - ')).toHaveLength(3);
	});
});
