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
	forecast: {
		heading: 'The next 12 months',
		textHeading: 'THE NEXT 12 MONTHS (due dates per month)',
		intro: 'Due dates per month from {day} on (the current month from that day), and the devices overdue now.',
		month: 'Month',
		due: 'Due',
		overdueNow: 'Overdue now',
		overdueDevices: { one: '{count} device overdue now', other: '{count} devices overdue now' },
		dueDates: { one: '{count} due date in the 12 months', other: '{count} due dates in the 12 months' },
		withoutDueDate: { one: '{count} device has no next test date: not counted.', other: '{count} devices have no next test date: not counted.' },
		withoutInterval: {
			one: '{count} device has no usable test interval: counted once, on its next test date.',
			other: '{count} devices have no usable test interval: each counted once, on its next test date.',
		},
		rule: 'Assumed: each device is tested on its due date and falls due again one test interval later; an overdue device is tested now and falls due again one interval after today. The attached forecast CSV has the months per customer and department.',
	},
} as const;
