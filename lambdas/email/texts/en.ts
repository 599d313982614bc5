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
	notices: {
		subject: 'Re-test due in {month}: {count} devices at {customerName}',
		introduction: 'Dear {customerName}, the devices below are due for their re-test in {month}. Reply to this e-mail to book a date and we will arrange the visit.',
		closingText: 'Reply to {replyTo} to book a date for the re-test.',
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
	},
	forecast: {},
} as const;
