/**
 * The long variants. `npm test` runs every kind of case once, quickly; `npm run soak` (TEC_SOAK=1)
 * runs the same files with more of each: more seeds, runs, rounds and rows. A test file that
 * imports this module is picked up by the soak (vitest.soak.config.mts), so a new long variant is
 * one call here:
 *
 *   const RUNS = soaked(1000, 10_000);
 *   const rows = soaked(ROWS.slice(0, 2), ROWS);
 *
 * No test is skipped in either run: the quick run only does fewer of the same.
 */
export const SOAK = process.env.TEC_SOAK === '1';

/** `quick` under `npm test`, `long` under `npm run soak`. */
export function soaked<T>(quick: T, long: T): T {
	return SOAK ? long : quick;
}
