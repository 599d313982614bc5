/**
 * The English texts of every e-mail. Placeholders are written {name}; a text with a count has a
 * `one` and an `other` form. Each section belongs to one kind of e-mail; de.ts has the same keys.
 */
export const en = {
	common: {
		sandboxAccount: '(sandbox account)',
		devices: { one: '{count} device', other: '{count} devices' },
	},
	digest: {},
	failedTest: {},
	compliance: {},
	failureRates: {},
	notices: {},
	forecast: {},
} as const;
