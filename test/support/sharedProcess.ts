/**
 * Runs before each file of a shared process (vitest.config.mts SHARED): a file meets the built node
 * and the client as a process of its own would, not with the memory a file before left in them
 * (the built node's, dropped with its modules; the client's sources, loaded once per process by
 * vitest: their pacers per token and learned page sizes per base URL, cleared).
 */
import { sharedPacers, sharedPageSizes } from '../../client';
import { forgetBuiltNode } from './builtNode';

export function startAsOwnProcess(): void {
	forgetBuiltNode();
	sharedPacers.clear();
	sharedPageSizes.clear();
}

startAsOwnProcess();
