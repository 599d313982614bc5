/**
 * `build` run by the first call only, its result kept for every later one. For what a function's
 * cold start should not pay for before it is used: zod schemas cost far more to build than to load
 * (bench/bundles.ts measures a bundle's init).
 */
export function once<T>(build: () => T): () => T {
	let built: { value: T } | undefined;
	return () => (built ??= { value: build() }).value;
}
