import * as z from 'zod/v4-mini';
import { en } from 'zod/v4/locales';

/**
 * zod 4's tree-shakable API (zod/v4-mini) with what classic zod gave the project's schemas and the
 * mini API has not: `.meta()`'s described copy, and `ctx.addIssue` in transforms and refinements
 * (the issues they add are classic's: custom, with the value, parsing goes on). Written this way,
 * a Lambda bundle carries only the zod it uses (bench/bundles.ts).
 */

// zod's English messages, which classic zod sets up when it loads and the mini API leaves to its user
// ("Invalid input: expected string, received number"). Every module of the project's mini schemas
// imports this one, directly or through events/schemas.ts.
z.config(en());

export interface IssueContext {
	addIssue(issue: { code: 'custom'; message: string }): void;
}

function issuesOf(payload: z.core.ParsePayload): IssueContext {
	return { addIssue: (issue) => payload.issues.push({ ...issue, input: payload.value, continue: true }) };
}

/** Classic `.transform(fn)`: use as `z.pipe(schema, transform(fn))`. */
export function transform<I, O>(fn: (value: I, ctx: IssueContext) => O) {
	return z.transform<I, O>((value, payload) => fn(value, issuesOf(payload)));
}

/** Classic `.superRefine(fn)`: use as `schema.check(superRefine(fn))`. */
export function superRefine<T>(fn: (value: T, ctx: IssueContext) => void) {
	return z.check<T>((payload) => fn(payload.value, issuesOf(payload)));
}

/** Classic `z.preprocess(fn, schema)`. */
export function preprocess<S extends z.ZodMiniType>(fn: (value: unknown) => unknown, schema: S) {
	return z.pipe(z.transform(fn), schema);
}

/** Classic `.meta(meta)`: a copy of the schema with `meta` in the global registry (what JSON Schemas show). */
export function meta<S extends z.ZodMiniType>(schema: S, data: { title?: string; description?: string }): S {
	const copy = schema.clone();
	z.globalRegistry.add(copy, data);
	return copy;
}
