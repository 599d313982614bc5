/**
 * Shares in per cent as a reader compares them: a bound beside the target it is read against
 * (the reliability target of the interval reason, the 2 % of the failure rates). One decimal, more
 * when one decimal would show the bound equal to the target, or on its other side: "at least
 * 98.0 %, below the target 98.0 %" contradicts itself, "at least 97.996 %" does not. Digits only
 * (a dot before the decimals); each face adds its sign and decimal mark. Pure.
 */

/** The share's digits in per cent with `decimals` decimals, rounded exactly (share ≥ 0, at most 98 decimals). */
function digits(share: number, decimals: number): string {
	const [whole, fraction] = share.toFixed(decimals + 2).split('.');
	return `${`${whole}${fraction.slice(0, 2)}`.replace(/^0+(?=\d)/, '')}.${fraction.slice(2)}`;
}

/** −1, 0 or 1 as two such digit strings compare, digit by digit (no rounding through a double). */
function compare(a: string, b: string): number {
	const [ai, af] = a.split('.');
	const [bi, bf] = b.split('.');
	if (ai.length !== bi.length) return Math.sign(ai.length - bi.length);
	const n = Math.max(af.length, bf.length);
	const x = ai + af.padEnd(n, '0');
	const y = bi + bf.padEnd(n, '0');
	return x === y ? 0 : x < y ? -1 : 1;
}

/** A confidence as set: whole per cent when it is one ("50"), else as exactPercent ("55.5"). */
export function confidencePercent(share: number): string {
	const whole = Math.round(share * 100);
	return Math.abs(share * 100 - whole) < 1e-9 ? String(whole) : exactPercent(share);
}

/** A target as set: one decimal, more until it reads back as the same share ("98.0", "98.25"). */
export function exactPercent(share: number): string {
	for (let d = 1; d <= 15; d++) if (Number(share.toFixed(d + 2)) === share) return digits(share, d);
	return digits(share, 15);
}

/**
 * A share beside `against` (shown as exactPercent shows it): one decimal, more until the shown
 * digits compare with the shown target as the share compares with it.
 */
export function percentBeside(share: number, against: number): string {
	// Reliabilities and rates are shares; anything else is shown as it is, with one decimal.
	if (!(share >= 0 && share <= 1 && against >= 0 && against <= 1)) return (share * 100).toFixed(1);
	const target = exactPercent(against);
	const side = Math.sign(share - against);
	for (let d = 1; d <= 98; d++) {
		const shown = digits(share, d);
		if (compare(shown, target) === side) return shown;
	}
	return digits(share, 98);
}
