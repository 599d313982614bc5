import { describe, expect, it } from 'vitest';
import { Month } from '../support/month';
import { soaked } from '../support/soak';

/**
 * A month of operation, exact to the last e-mail (issue 25): the `npm start` runner and its
 * e-mails over simulated days against the sandbox's live mode (devices tested, made overdue,
 * created, deleted, moved to another customer or department, their intervals changed; results
 * uploaded), four cycles a day, across the end of summer time in the recipients' time zone, with
 * faults (a send failing mid-digest, an immediate e-mail failing, a restart between sending and
 * recording, a crash inside a poll run). Every e-mail is read back from the outbox and compared
 * with the sandbox's ground truth. `local` runs it as `npm start` does (state files, outbox), `aws`
 * as the stack does (DynamoDB state table on dynalite, SES v2 with Powertools Idempotency on a
 * wire-level stand-in). `npm test` runs 20 days on each path (12 to 31 October, then the settling
 * cycles of 1 November: every fault in the first week, the end of summer time, a month's first day);
 * `npm run soak` eight seeds of 60 days. TEC_MONTH_SEEDS (comma-separated) and TEC_MONTH_DAYS
 * choose other months.
 */
const SEEDS = (process.env.TEC_MONTH_SEEDS ?? soaked('1', '1,2,3,4,5,6,7,8')).split(',').map(Number);
const DAYS = Number(process.env.TEC_MONTH_DAYS ?? soaked(20, 60));

describe.each(['local', 'aws'] as const)('a month of operation (%s)', (mode) => {
	for (const seed of SEEDS) {
		it(`seed ${seed}, ${DAYS} days: every e-mail tells the truth to the right person, once`, async () => {
			const month = new Month({ seed, days: DAYS, mode });
			await month.run();
			console.info(`month (${mode}, seed ${seed}): ${JSON.stringify(month.counts)}`);
			if (month.findings.length > 0) console.info(month.findings.slice(0, 40).join('\n'));
			expect(month.findings).toEqual([]);
			// The month exercised what it claims to.
			const c = month.counts;
			expect(c.liveChanges).toBeGreaterThan(0);
			expect(c.moves).toBeGreaterThan(0);
			expect(c.failedResults).toBeGreaterThan(0);
			expect(c.dstDigestsChecked).toBeGreaterThan(0);
			for (const [kind, n] of Object.entries(c.faults)) expect(n, kind).toBeGreaterThan(0);
		}, soaked(300_000, 900_000));
	}
});
