/**
 * The node's and the trigger's files share processes (vitest.config.mts SHARED), and the built node
 * keeps memory per process (pacers per token, page sizes learned per address). Before each file,
 * test/support/sharedProcess.ts drops the built node from Node's require cache: these hold that a
 * file meets the node as a process of its own would, n8n's engine driving it against the sandbox.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, it } from 'vitest';
import { builtNodeModules, forgetBuiltNode } from '../support/builtNode';
import { PACKAGE_DIR } from '../support/n8n';
import { run, settledRequests, useSandbox } from './helpers';

// Before this file's first line ran: a file before it in this process loaded the node too.
const loadedAtStart = builtNodeModules();

const sandbox = useSandbox({ ratePerSecond: 200 });

/** The built node's client module as n8n's loader required it (its process-wide pacers). */
const builtClient = () => createRequire(path.join(PACKAGE_DIR, 'dist', 'package.json'))('./client') as typeof import('../../client');

/** Reads five devices with the node; the requests the sandbox answered for it. */
async function readFive(): Promise<number> {
	const before = await settledRequests(sandbox);
	const { items, error } = await run(sandbox, { resource: 'device', operation: 'getAll', limit: 5 });
	expect(error).toBeUndefined();
	expect(items).toHaveLength(5);
	return (await settledRequests(sandbox)) - before;
}

it('the file started without the built node any file before it had loaded', () => {
	expect(loadedAtStart).toEqual([]);
});

it('a page size the node learned stays for the process, and is gone once the built node is dropped', async () => {
	sandbox.paging.maxPageSize = 2;
	const learning = await readFive();
	sandbox.paging.maxPageSize = undefined;
	// The same process remembers the refused size: the pages of 2 again (without the refused
	// request), although the service takes 5 now.
	expect(learning).toBeGreaterThan(2);
	expect(await readFive()).toBe(learning - 1);

	forgetBuiltNode();
	expect(builtClient().sharedPacers.size, 'pacers of the dropped node').toBe(0);
	// The node n8n's loader requires anew reads as a new process: one page of 5.
	expect(await readFive()).toBe(1);
	expect(builtClient().sharedPacers.size, "the new node's pacer for the sandbox's token").toBe(1);
});
