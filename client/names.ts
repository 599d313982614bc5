/**
 * Names of customers and departments match whatever their case and surrounding or doubled spaces:
 * the e-mail routing (email/routing.ts) and the interval settings' departments (client/intervals.ts)
 * by one rule.
 */
export function normalName(name: string): string {
	return name.trim().replace(/\s+/g, ' ').toLowerCase();
}
