import type { Catalog } from './index';

/** Die deutschen Texte jeder E-Mail: dieselben Schlüssel wie en.ts. */
export const de: Catalog = {
	common: {
		sandboxAccount: '(Sandbox-Konto)',
		devices: { one: '{count} Gerät', other: '{count} Geräte' },
	},
	digest: {},
	failedTest: {},
	compliance: {},
	failureRates: {},
	notices: {},
	forecast: {},
};
