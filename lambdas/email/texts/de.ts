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
	notices: {
		subject: 'Wiederholungsprüfung im {month}: {count} Geräte bei {customerName}',
		introduction: 'Sehr geehrte Damen und Herren von {customerName}, für die unten aufgeführten Geräte ist im {month} die Wiederholungsprüfung fällig. Antworten Sie einfach auf diese E-Mail, um einen Termin zu vereinbaren.',
		closingText: 'Für einen Termin zur Wiederholungsprüfung schreiben Sie bitte an {replyTo}.',
		heading: 'Wiederholungsprüfung im {month}',
		dueSection: 'Fällig im {month}',
		dueCount: { one: '{count} Gerät ist zur Wiederholungsprüfung fällig.', other: '{count} Geräte sind zur Wiederholungsprüfung fällig.' },
		overdueSection: 'Bereits überfällig',
		overdueCount: { one: '{count} Gerät ist bereits überfällig: Bitte planen Sie es gleich mit ein.', other: '{count} Geräte sind bereits überfällig: Bitte planen Sie sie gleich mit ein.' },
		columns: { designation: 'Bezeichnung', idBarcode: 'ID-Barcode', department: 'Abteilung', location: 'Standort', due: 'Fällig am' },
		more: '… und {count} weitere (alle stehen in der angehängten Liste).',
		attachment: 'Die angehängte CSV-Datei enthält alle Geräte dieser Benachrichtigung.',
		howToBook: 'Um einen Termin zu vereinbaren, antworten Sie auf diese E-Mail oder schreiben Sie an {replyTo}.',
		closing: 'Mit freundlichen Grüßen',
		csvFile: 'wiederholungspruefung-{month}.csv',
		csvStatus: { due: 'fällig', overdue: 'überfällig' },
		csvColumns: { status: 'Status' },
		digestSent: { one: 'Benachrichtigungen zur Wiederholungsprüfung an {count} Kunden für {devices} versandt.', other: 'Benachrichtigungen zur Wiederholungsprüfung an {count} Kunden für {devices} versandt.' },
		digestNoAddress: { one: '{count} Kunde hat keine Kontaktadresse: {names}.', other: '{count} Kunden haben keine Kontaktadresse: {names}.' },
	},
	forecast: {},
};
