import { createRequire } from 'node:module';
import { configDefaults, defineConfig, type ViteUserConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const require = createRequire(import.meta.url);

/**
 * Files whose guarantees need the machine's attention (the load test's pacing under 50 clients):
 * they run alone, after the rest of the suite.
 */
export const ALONE = ['test/reliability/load.test.ts'];

/**
 * Folders whose files leave nothing behind in the modules they share: one process runs several of
 * them, without loading every module again for each file (n8n-core's; aws-cdk-lib's, whose first
 * synthesis in a process costs several seconds more than the next ones). The built node and the
 * client keep per-process memory (pacing per token, learned page sizes per address): before each
 * file the built node is dropped from Node's require cache and the client's memory cleared
 * (test/support/sharedProcess.ts, held by test/node/sharedProcess.test.ts and
 * test/client/sharedProcess.test.ts).
 */
export const SHARED = ['test/client/', 'test/node/', 'test/trigger/', 'test/infra/'];

/** Where the long files are (fault matrix, crash runs, months, the quick bench): they start first. */
const LONG = ['/test/reliability/', '/test/bench/'];

/**
 * Vitest's order (longest first by the last run's durations, else larger files first), with the
 * long folders ahead of the rest, so that a clean clone (no durations yet) does not end on them.
 */
class LongFirst extends BaseSequencer {
	override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
		const sorted = await super.sort(files);
		const rank = (f: TestSpecification) => [f.project.config.sequence.groupOrder, LONG.some((dir) => f.moduleId.includes(dir)) ? 0 : 1];
		return sorted
			.map((file, index) => ({ file, index, rank: rank(file) }))
			.sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.index - b.index)
			.map(({ file }) => file);
	}
}

/** The suite over `include` (globs or files); `npm test` takes every test, `npm run soak` its own. */
export function suite(include: string[], env: Record<string, string> = {}): ViteUserConfig {
	const alone = ALONE.filter((file) => include.includes(file) || include.includes('test/**/*.test.ts'));
	const shared = include.includes('test/**/*.test.ts') ? SHARED.map((dir) => `${dir}**/*.test.ts`) : include.filter((file) => SHARED.some((dir) => file.startsWith(dir)));
	return defineConfig({
		resolve: {
			// One copy of n8n-workflow (its CommonJS build), the one n8n-core and the built node load.
			alias: { 'n8n-workflow': require.resolve('n8n-workflow') },
		},
		test: {
			globalSetup: ['test/support/globalSetup.ts'],
			testTimeout: 30_000,
			hookTimeout: 60_000,
			pool: 'forks',
			// The suite mostly waits (HTTP round trips, retry waits, child processes), so files run
			// four at a time even on two cores; vitest's default (cores - 1) would run them one by one.
			maxWorkers: 4,
			// describe.concurrent blocks (the fault matrix's eleven columns) run all their tests at once.
			maxConcurrency: 12,
			env,
			projects: [
				{ extends: true, test: { name: 'suite', include, exclude: [...configDefaults.exclude, ...ALONE, ...SHARED.map((dir) => `${dir}**`)], sequence: { groupOrder: 0, sequencer: LongFirst } } },
				{ extends: true, test: { name: 'shared', include: shared, isolate: false, setupFiles: ['test/support/sharedProcess.ts'], sequence: { groupOrder: 0, sequencer: LongFirst } } },
				{ extends: true, test: { name: 'alone', include: alone, sequence: { groupOrder: 1, sequencer: LongFirst } } },
			],
		},
	});
}

export default suite(['test/**/*.test.ts']);
