import type { Strings } from './en';
import type { Locale } from './index';

/**
 * The customer re-test notices' texts, in a module of their own, apart from the other e-mails'
 * catalogues (texts/en.ts and de.ts): the notices' function bundles these, not every e-mail's texts
 * in both languages, and the other functions not these (each bundle under bench/bundles.ts's
 * TARGET_KIB, test/lambdas/bundle.test.ts). Checked with the catalogues (test/email/texts.test.ts).
 */
export const NOTICES_EN = {
	subject: { one: 'Re-test due in {month}: {count} device at {customerName}', other: 'Re-test due in {month}: {count} devices at {customerName}' },
	introduction: 'Dear {customerName}, the devices below are due for their re-test in {month}. Reply to this e-mail to book a date and we will arrange the visit.',
	closingText: 'Thank you for keeping your devices safe with us.',
	heading: 'Re-test due in {month}',
	dueSection: 'Due in {month}',
	dueCount: { one: '{count} device is due for its re-test.', other: '{count} devices are due for their re-test.' },
	overdueSection: 'Already overdue',
	overdueCount: { one: '{count} device is already overdue: please book it with the others.', other: '{count} devices are already overdue: please book them with the others.' },
	columns: { designation: 'Designation', idBarcode: 'ID barcode', department: 'Department', location: 'Location', due: 'Due date' },
	more: '…and {count} more (all of them are in the attached list).',
	attachment: 'The attached CSV file lists every device of this notice.',
	howToBook: 'To book a date, reply to this e-mail or write to {replyTo}.',
	closing: 'Kind regards',
	csvFile: 'retest-{month}.csv',
	csvStatus: { due: 'due', overdue: 'overdue' },
	csvColumns: { status: 'Status' },
	digestSent: { one: 'Re-test notices sent to {count} customer for {devices}.', other: 'Re-test notices sent to {count} customers for {devices}.' },
	digestNoAddress: { one: '{count} customer has no contact address: {names}.', other: '{count} customers have no contact address: {names}.' },
	digestLate: 'These notices were due on {day}; that run did not take place, so they went out at the next chance.',
} as const;

/** The notices' texts of one language: the English keys, each a string. */
export type NoticesTexts = Strings<typeof NOTICES_EN>;

export const NOTICES_DE: NoticesTexts = {
	subject: { one: 'Wiederholungsprüfung im {month}: {count} Gerät bei {customerName}', other: 'Wiederholungsprüfung im {month}: {count} Geräte bei {customerName}' },
	introduction: 'Sehr geehrte Damen und Herren, für die unten aufgeführten Geräte von {customerName} ist im {month} die Wiederholungsprüfung fällig. Antworten Sie einfach auf diese E-Mail, um einen Prüftermin zu vereinbaren.',
	closingText: 'Vielen Dank, dass Sie die Sicherheit Ihrer Geräte in unsere Hände legen.',
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
	digestLate: 'Diese Benachrichtigungen waren am {day} fällig; jener Lauf fand nicht statt, daher wurden sie bei nächster Gelegenheit versandt.',
};

/** The notices' texts in one language. */
export const noticesTextsFor = (locale: Locale): NoticesTexts => (locale === 'de' ? NOTICES_DE : NOTICES_EN);
