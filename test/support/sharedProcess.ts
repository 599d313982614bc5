/**
 * Runs before each file of a shared process (vitest.config.mts SHARED): a file meets the built node
 * as a process of its own would, not with the memory a file before left in it.
 */
import { forgetBuiltNode } from './builtNode';

forgetBuiltNode();
