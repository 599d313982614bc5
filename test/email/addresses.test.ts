/**
 * One address rule for both faces: the node's parameters (email/recipientsInput.ts) and the
 * Lambdas' settings (lambdas/email/recipients.ts) accept the same addresses and write them alike
 * (lower case, an internationalized domain in Punycode), so the same recipient gets the same
 * e-mail, `to` and dedupeKey from n8n as from the Lambdas.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAddressList, parseRecipients } from '../../email/recipientsInput';
import { recipientsSchema } from '../../lambdas/email/recipients';

/** The Lambdas' reading of a default list: the addresses, or the messages of its problems. */
function lambdaList(list: string[]): { ok: string[] } | { problems: string[] } {
	const parsed = recipientsSchema().safeParse({ default: list });
	return parsed.success ? { ok: parsed.data.default } : { problems: parsed.error.issues.map((i) => i.message) };
}

function nodeList(list: string[]): { ok: string[] } | { problem: string } {
	try {
		return { ok: parseRecipients({ default: list }, 'Recipients (Routing Rules)').default };
	} catch (error) {
		return { problem: (error as Error).message };
	}
}

/** Characters an address is made of: ASCII, umlauts, the separators and URL delimiters a domain must not hide. */
const char = fc.constantFrom(...'abcXYZ09-._+äöüßÉ例/\\?#:%^|'.split(''), 'xn--');
const part = fc.array(char, { minLength: 1, maxLength: 8 }).map((a) => a.join(''));
const address = fc.oneof(
	fc.tuple(part, part, fc.constantFrom('de', 'example', 'COM', 'tést')).map(([l, d, tld]) => `${l}@${d}.${tld}`),
	fc.tuple(part, part).map(([l, d]) => `${l}@${d}`),
	fc.constantFrom('qs@prüfdienst-müller.de', 'QS@Prüfdienst-Müller.DE', 'jörg@lab.example', 'a@xn--a.com', 'a@b/c.com', 'a@ex^ample.com', 'a@x.c:80'),
);

describe('one address rule for the node and the Lambdas', () => {
	it('both faces accept the same addresses and give the same strings (lower case, domain in Punycode); a refused one on both, for the same reason', () => {
		fc.assert(
			fc.property(fc.array(address, { minLength: 1, maxLength: 4 }), (list) => {
				const lambda = lambdaList(list);
				const node = nodeList(list);
				if ('ok' in lambda) expect(node).toEqual(lambda);
				else {
					expect('problem' in node).toBe(true);
					// The node stops at the first problem; the Lambdas list every one, the node's among them (after the name of where).
					const reason = (node as { problem: string }).problem.replace(/^Recipients \(Routing Rules\) › default: /, '');
					expect(lambda.problems.map((p) => p.replace(/^recipients\.default: /, ''))).toContain(reason);
				}
			}),
			{ numRuns: 500 },
		);
	});

	it('a recipient at a domain with umlauts: the Punycode form SES takes', () => {
		expect(parseAddressList('QS@Prüfdienst-Müller.de', 'To')).toEqual(['qs@xn--prfdienst-mller-0vbj.de']);
		expect(lambdaList(['QS@Prüfdienst-Müller.de'])).toEqual({ ok: ['qs@xn--prfdienst-mller-0vbj.de'] });
	});

	it.each([
		['jörg@lab.example', 'To: "jörg@lab.example" has a local part that is not 7-bit ASCII'],
		['a@ex|ample.com', 'To: "a@ex|ample.com" has a domain that is not a valid (internationalized) domain name'],
		['a@lab/x.example', 'To: "a@lab/x.example" has a domain that is not a valid (internationalized) domain name'],
	])('%s is refused naming the parameter', (value, message) => {
		expect(() => parseAddressList(value, 'To')).toThrow(message);
	});

	it('the routing rules’ locales find an address at a domain with umlauts by either form, as the Lambdas’', () => {
		const rules = { default: ['wartung@müller.example'], locales: { 'Wartung@Müller.example': 'de' } };
		expect(parseRecipients(rules, 'Recipients (Routing Rules)').locales).toEqual(recipientsSchema().parse(rules).locales);
		expect(parseRecipients(rules, 'Recipients (Routing Rules)').locales).toEqual({ 'wartung@xn--mller-kva.example': 'de' });
	});
});
