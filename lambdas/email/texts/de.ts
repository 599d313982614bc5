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
	forecast: {
		heading: 'Prüfungen in den nächsten 12 Monaten',
		textHeading: 'PRÜFUNGEN IN DEN NÄCHSTEN 12 MONATEN (Fälligkeiten je Monat)',
		intro: 'Fälligkeiten je Monat ab dem {day} (der laufende Monat ab diesem Tag) und die jetzt überfälligen Geräte.',
		month: 'Monat',
		due: 'fällig',
		overdueNow: 'jetzt überfällig',
		overdueDevices: { one: '{count} Gerät jetzt überfällig', other: '{count} Geräte jetzt überfällig' },
		dueDates: { one: '{count} Fälligkeit in den 12 Monaten', other: '{count} Fälligkeiten in den 12 Monaten' },
		withoutDueDate: { one: '{count} Gerät hat kein nächstes Prüfdatum: nicht gezählt.', other: '{count} Geräte haben kein nächstes Prüfdatum: nicht gezählt.' },
		withoutInterval: {
			one: '{count} Gerät hat kein verwendbares Prüfintervall: einmal gezählt, an seinem nächsten Prüfdatum.',
			other: '{count} Geräte haben kein verwendbares Prüfintervall: je einmal gezählt, an ihrem nächsten Prüfdatum.',
		},
		rule: 'Angenommen: Jedes Gerät wird an seinem Fälligkeitstag geprüft und ist ein Prüfintervall später wieder fällig; ein überfälliges Gerät wird jetzt geprüft und ist ein Intervall nach heute wieder fällig. Die angehängte Prognose-CSV enthält die Monate je Kunde und Abteilung.',
	},
};
