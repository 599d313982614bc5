/**
 * The client's process-wide memory (pacers per token, learned page sizes per base URL) does not
 * reach from one test file to the next in a shared process (test/support/sharedProcess.ts).
 */
import { describe, expect, it } from 'vitest';
import { sharedPacers, sharedPageSizes } from '../../client';
import { startAsOwnProcess } from '../support/sharedProcess';
import { BASE, newClock } from './helpers';

describe('a file in a shared process', () => {
	it('starts without the pacers and page sizes a file before it left', () => {
		expect(sharedPacers.size).toBe(0);
		expect(sharedPageSizes.get(`${BASE}/api/v1`)).toBeUndefined();
	});

	it('what one file teaches the client is gone for the next', () => {
		sharedPacers.forKey('token@somewhere', newClock());
		sharedPageSizes.remember(`${BASE}/api/v1`, 3);
		expect([sharedPacers.size, sharedPageSizes.get(`${BASE}/api/v1`)]).toEqual([1, 3]);
		startAsOwnProcess();
		expect([sharedPacers.size, sharedPageSizes.get(`${BASE}/api/v1`)]).toEqual([0, undefined]);
	});
});
