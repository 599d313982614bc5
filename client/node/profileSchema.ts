import { readFileSync } from 'node:fs';
import * as z from 'zod/v4-mini';
import { meta, transform } from './zodMini';
import { PROFILE_SPEC, ProfileError, allowedText, leafAccepts, resolveProfile, type LeafKind, type ServiceProfile, type SpecNode } from '../profile';

/**
 * The service profile as a zod schema, built from the same `PROFILE_SPEC` as the validator in
 * profile.ts: what a user writes (every key optional, no unknown keys), parsed into the whole
 * profile merged over the defaults. Used where zod is at hand (the Lambdas' configuration, the
 * published JSON Schema, docs/service-profile.schema.json); the n8n node, which ships without
 * dependencies, calls `resolveProfile` itself, so both give the same messages.
 * `client/node/` holds the client's Node-side helpers (zod, the file system): not part of the n8n
 * package (tsconfig.json leaves the folder out), linted with the project's rules, not n8n's.
 */

function leaf(kind: LeafKind): z.ZodMiniType {
	const base = (() => {
		switch (kind) {
			case 'version':
				return z.literal(1);
			case 'method':
				return z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
			case 'style':
				return z.enum(['limitOffset', 'pageNumber']);
			case 'dataType':
				return z.enum(['Number', 'Text', 'Date']);
			case 'textCase':
				return z.enum(['ignore', 'respect']);
			case 'missing':
				return z.enum(['last', 'first', 'lowest', 'highest']);
			case 'firstPage':
				return z.union([z.literal(0), z.literal(1)]);
			case 'pageSize':
				return z.number().check(z.int(), z.gte(1), z.lte(10_000));
			case 'keyId':
				return z.nullable(z.number().check(z.int(), z.gte(1)));
			case 'labels':
				return z.array(z.string().check(z.minLength(1), z.maxLength(100))).check(z.minLength(1), z.maxLength(20));
			case 'nameOrNull':
				return z.nullable(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/)));
			case 'name':
				return z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/));
			case 'path':
				return z.string().check(z.startsWith('/'), z.maxLength(300));
		}
	})();
	// The JSON Schema keeps the shape; the refinement keeps the validator's exact rule.
	return meta((base as z.ZodMiniType).check(z.refine((v) => leafAccepts(kind, v), { message: `must be ${allowedText(kind)}` })), { description: `${allowedText(kind)}` });
}

function node(spec: SpecNode): z.ZodMiniType {
	if (typeof spec === 'string') return z.optional(leaf(spec));
	return z.optional(z.strictObject(Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, node(v)]))));
}

/**
 * What a user writes: a partial profile. Built on first use (a schema per key of the spec: the
 * largest part of a Lambda's init when built at load, and only the JSON Schema and the tests read it).
 */
let inputSchema: z.ZodMiniObject | undefined;
export function serviceProfileInputSchema(): z.ZodMiniObject {
	inputSchema ??= meta((node(PROFILE_SPEC) as z.ZodMiniOptional<z.ZodMiniObject>).def.innerType, {
		title: 'Service profile',
		description: 'The layout of the Test Equipment Cloud service: paths, paging, field and property names. Every key is optional; what is left out keeps its default (docs/service-profile.md).',
	});
	return inputSchema;
}

/**
 * A user's profile, checked and merged over the defaults (cross-key rules included). Its issues
 * carry resolveProfile's message (the key path and what is allowed), as every face words it; the
 * shape it accepts is serviceProfileInputSchema()'s (a property test holds them equal).
 */
export const ServiceProfileSchema = z.pipe(
	z.unknown(),
	transform((value: unknown, ctx) => {
		try {
			return resolveProfile(value === undefined ? {} : value);
		} catch (error) {
			ctx.addIssue({ code: 'custom', message: (error as Error).message });
			return z.NEVER;
		}
	}),
);

/** The JSON Schema published as docs/service-profile.schema.json. */
export function serviceProfileJsonSchema(): Record<string, unknown> {
	return { ...z.toJSONSchema(serviceProfileInputSchema(), { target: 'draft-7', io: 'input', unrepresentable: 'any' }), $id: 'https://github.com/test-equipment-cloud/n8n-nodes-test-equipment-cloud/docs/service-profile.schema.json' };
}

/** A profile from a JSON file (`--profile FILE`, `TEC_PROFILE`, CDK context `serviceProfile`), refused like any other. */
export function readProfileFile(path: string): ServiceProfile {
	let text: string;
	try {
		text = readFileSync(path, 'utf8');
	} catch (error) {
		throw new ProfileError('service profile', `cannot read the file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
	}
	try {
		return resolveProfile(text.trim() === '' ? '{}' : text);
	} catch (error) {
		if (error instanceof ProfileError) throw new ProfileError(error.parameter, `${error.message.slice(error.parameter.length + 2)} (in ${path})`);
		throw error;
	}
}
