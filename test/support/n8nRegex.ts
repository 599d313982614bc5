import { createRequire } from 'node:module';
import vm from 'node:vm';
import * as imported from 'n8n-workflow';

/**
 * n8n checks a resource locator's regular expressions (and others) in a `vm` context under a 250 ms
 * watchdog, its guard against a pattern that runs away on a user's input. The watchdog measures wall
 * time: on a loaded 2-core test machine the run of a trivial pattern has passed it with nothing
 * wrong ("Regular expression execution timed out" from WorkflowExecute's parameter check). The guard
 * is n8n's, not what these tests prove: the same kind of engine with a watchdog that a loaded machine
 * does not reach, set on the copy of n8n-workflow that n8n-core requires (CommonJS) and on the one the
 * tests import.
 */
const TEST_REGEX_TIMEOUT_MS = 10_000;

interface RegexEngine {
	exec(pattern: string, input: string, flags?: string): RegExpExecArray | null;
	test(pattern: string, input: string, flags?: string): boolean;
	replace(pattern: string, input: string, flags: string | undefined, replacement: string): string;
	matchAll(pattern: string, input: string, flags?: string): RegExpExecArray[];
	split(pattern: string, input: string, flags?: string): string[];
}

function patientEngine(timeoutMs: number): RegexEngine {
	const box: Record<string, unknown> = {};
	const context = vm.createContext(box);
	const scripts = new Map<string, vm.Script>();
	const run = <T>(code: string, vars: Record<string, unknown>): T => {
		Object.assign(box, vars, { result: undefined });
		let script = scripts.get(code);
		if (!script) scripts.set(code, (script = new vm.Script(code)));
		try {
			script.runInContext(context, { timeout: timeoutMs });
		} catch (error) {
			if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new Error('Regular expression execution timed out');
			throw error;
		}
		return box.result as T;
	};
	return {
		exec: (pattern, input, flags = '') => run('result = new RegExp(pattern, flags).exec(input)', { pattern, input, flags }),
		test: (pattern, input, flags = '') => run('result = new RegExp(pattern, flags).test(input)', { pattern, input, flags }),
		replace: (pattern, input, flags = '', replacement) => run('result = input.replace(new RegExp(pattern, flags), replacement)', { pattern, input, flags, replacement }),
		matchAll: (pattern, input, flags = '') => run('result = Array.from(input.matchAll(new RegExp(pattern, flags)))', { pattern, input, flags: flags.includes('g') ? flags : `${flags}g` }),
		split: (pattern, input, flags = '') => run('result = input.split(new RegExp(pattern, flags))', { pattern, input, flags }),
	};
}

/** Sets the patient engine on every copy of n8n-workflow a test process loads. */
export function usePatientRegexEngine(): void {
	const engine = patientEngine(TEST_REGEX_TIMEOUT_MS);
	type Copy = { setSafeRegexEngine?: (e: RegexEngine) => void };
	const fromCore = createRequire(createRequire(__filename).resolve('n8n-core'))('n8n-workflow') as Copy;
	// The copy this process imports as the harness does (under vitest its ES build, under tsx the same CommonJS one).
	for (const copy of new Set<Copy>([fromCore, imported as Copy])) {
		if (typeof copy.setSafeRegexEngine !== 'function') throw new Error('n8n-workflow no longer exports setSafeRegexEngine: see test/support/n8nRegex.ts');
		copy.setSafeRegexEngine(engine);
	}
}
