import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { build, transform, type BuildOptions, type Plugin } from 'esbuild';
import { keepBundle, reuseBundle } from './bundleCache';

const ROOT = join(__dirname, '..');

/**
 * zod 4 (zod/v4) re-exports every locale as `z.locales` / `core.locales`, which keeps all of them
 * in a bundle (~140 KiB). The messages here are English, which zod sets up from its `en` module
 * directly, so the catalogue of the others is replaced by an empty one.
 */
const zodEnglishOnly: Plugin = {
	name: 'zod-english-only',
	setup(build) {
		build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
			/[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'zod-english-only' } : undefined,
		);
		build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({ contents: 'export {};', loader: 'js' }));
	},
};

/**
 * Lambda code takes only `request` from undici, and the Node.js runtime already carries undici
 * (behind its `fetch`): `lambdas/bundling/undici.ts` answers `request` with it, and a Lambda bundle
 * resolves `undici` to that module, so the package (225 KiB with its WebAssembly HTTP parser) is
 * not bundled a second time.
 */
const undiciOfTheRuntime: Plugin = {
	name: 'undici-of-the-runtime',
	setup(build) {
		build.onResolve({ filter: /^undici$/ }, (args) =>
			args.importer.includes(join('lambdas', 'bundling')) ? undefined : { path: join(ROOT, 'lambdas', 'bundling', 'undici.ts') },
		);
	},
};

/** A module of a package replaced by `contents` in Lambda bundles (what it did is never used there). */
function replaced(name: string, module: RegExp, importer: RegExp, contents: string): Plugin {
	return {
		name,
		setup(build) {
			build.onResolve({ filter: module }, (args) => (importer.test(args.importer) ? { path: name, namespace: name } : undefined));
			build.onLoad({ filter: /.*/, namespace: name }, () => ({ contents, loader: 'js' }));
		},
	};
}

/**
 * zod's JSON Schema generator (`z.toJSONSchema`): the contract's JSON Schemas are written by `npm
 * run contract`, never by a Lambda. A call in Lambda code would fail loudly, not answer wrongly.
 */
const zodWithoutJsonSchema = replaced(
	'zod-without-json-schema',
	/^\.\/to-json-schema\.js$/,
	/[\\/]zod[\\/]v4[\\/]core[\\/]index\.js$/,
	"const no = () => { throw new Error('z.toJSONSchema is left out of the Lambda bundles (infra/bundling.ts)'); };\nexport const toJSONSchema = no;\nexport class JSONSchemaGenerator { constructor() { no(); } }\n",
);

/**
 * The X-Ray SDK's patcher for the AWS SDK v2 (`captureAWS`, `captureAWSClient`) with semver, which
 * it alone needs (28 KiB): the Lambdas run the AWS SDK v3 (`captureAWSv3Client`); v2 is in no
 * Node.js runtime of Lambda since Node.js 18. Calling them fails loudly.
 */
const xrayWithoutSdkV2 = replaced(
	'xray-without-aws-sdk-v2',
	/^\.\/patchers\/aws_p$/,
	/[\\/]aws-xray-sdk-core[\\/]dist[\\/]lib[\\/]aws-xray\.js$/,
	"const no = () => { throw new Error('The AWS SDK v2 patcher of the X-Ray SDK is left out of the Lambda bundles (infra/bundling.ts)'); };\nmodule.exports = { captureAWS: no, captureAWSClient: no };\n",
);

/**
 * The X-Ray SDK's sampling rules (local and centralised, with their pollers: 12 KiB) serve its
 * middleware for incoming requests of web servers. In Lambda the trace header decides sampling
 * (the SDK turns centralised sampling off there) and the Tracer never asks a sampler; asking
 * fails loudly.
 */
const xrayWithoutSamplingRules = replaced(
	'xray-without-sampling-rules',
	/^\.\/sampling\/(default|local)_sampler$/,
	/[\\/]aws-xray-sdk-core[\\/]dist[\\/]lib[\\/]middleware[\\/]mw_utils\.js$/,
	"const no = () => { throw new Error('The X-Ray SDK\\'s sampling rules are left out of the Lambda bundles (infra/bundling.ts)'); };\nmodule.exports = { shouldSample: no, setLocalRules: no, setServiceConnector: no, start: no };\n",
);

/** The X-Ray SDK's EC2, ECS and Elastic Beanstalk plugins (host metadata for `config([...])`): not a Lambda's host. */
const xrayWithoutHostPlugins = replaced(
	'xray-without-host-plugins',
	/^\.\/segments\/plugins\/(ec2|ecs|elastic_beanstalk)_plugin$/,
	/[\\/]aws-xray-sdk-core[\\/]dist[\\/]lib[\\/]aws-xray\.js$/,
	"module.exports = { getData() { throw new Error('The X-Ray SDK\\'s host plugins are left out of the Lambda bundles (infra/bundling.ts)'); } };\n",
);

/**
 * JMESPath (the package and its function library, 24 KiB): Powertools Idempotency runs it only for
 * `eventKeyJmesPath` and `payloadValidationJmesPath`, which the Lambdas leave unset: they select
 * their keys in code (lambdas/adapters/sesMailer.ts, lambdas/email/aws.ts). A search fails loudly;
 * the default function library Idempotency builds is an empty class.
 */
const idempotencyWithoutJmespath = replaced(
	'idempotency-without-jmespath',
	/^@aws-lambda-powertools\/jmespath(\/functions)?$/,
	/[\\/]@aws-lambda-powertools[\\/]idempotency[\\/]lib[\\/]/,
	"export const search = () => { throw new Error('JMESPath is left out of the Lambda bundles: select the idempotency key in code (infra/bundling.ts)'); };\nexport class PowertoolsFunctions {}\n",
);

/**
 * The X-Ray SDK's list of AWS SDK request and response fields it records, per service (10 KiB of
 * JSON; S3 and SQS are most of it). Of the services it lists, the Lambdas call DynamoDB only
 * (EventBridge, Secrets Manager and SES v2 are not in it), so their bundles keep that entry, read
 * from the package as it is. A service added to the Lambdas that the list knows belongs here.
 */
export const XRAY_RECORDED_SERVICES = ['dynamodb'];
const xrayWhitelistOfUsedServices: Plugin = {
	name: 'xray-whitelist-of-used-services',
	setup(build) {
		build.onLoad({ filter: /[\\/]aws-xray-sdk-core[\\/]dist[\\/]lib[\\/]resources[\\/]aws_whitelist\.json$/ }, async (args) => {
			const { services } = JSON.parse(await readFile(args.path, 'utf8')) as { services: Record<string, unknown> };
			const kept = Object.fromEntries(XRAY_RECORDED_SERVICES.map((name) => [name, services[name]]));
			return { contents: JSON.stringify({ services: kept }), loader: 'json' };
		});
	},
};

/** The X-Ray SDK reads its package.json for two fields (the SDK's name and version in each segment): the bundle keeps those. */
const xrayPackageNameAndVersion: Plugin = {
	name: 'xray-package-name-and-version',
	setup(build) {
		build.onLoad({ filter: /[\\/]aws-xray-sdk-core[\\/]package\.json$/ }, async (args) => {
			const { name, version } = JSON.parse(await readFile(args.path, 'utf8')) as { name: string; version: string };
			return { contents: JSON.stringify({ name, version }), loader: 'json' };
		});
	},
};

/**
 * A package pinned to another version by one of its dependents gets a nested copy
 * (node_modules/a/node_modules/b); most of its modules are often the hoisted copy's byte for byte
 * (Powertools Idempotency pins commons 2.35.0, the other Powertools packages take 2.36.0: they
 * differ in version.js alone). Such a module is bundled once, from the hoisted copy: only where it,
 * and every module it imports, resolves alike from both places. What differs (version.js, and
 * whatever imports it, such as the user agent's version) stays the nested copy's.
 */
const NESTED = /^(.*?[\\/]node_modules[\\/])(?:@[^\\/]+[\\/])?[^\\/]+[\\/]node_modules[\\/](.+)$/;
const IMPORTED = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']/g;
const identicalNestedModules: Plugin = {
	name: 'identical-nested-modules',
	setup(build) {
		/** Twins found from a module itself; one found while comparing another module is not kept (a cycle assumed it). */
		const twins = new Map<string, string | undefined>();
		const resolveFrom = async (path: string, dir: string) => {
			const r = await build.resolve(path, { kind: 'import-statement', resolveDir: dir, pluginData: { hoisting: true } });
			return r.errors.length > 0 ? undefined : `${r.namespace}:${r.path}`;
		};
		/** The hoisted twin of a nested module, when it and what it imports are the same from there. */
		const twinOf = async (file: string, within: ReadonlySet<string> = new Set()): Promise<string | undefined> => {
			if (twins.has(file)) return twins.get(file);
			const m = NESTED.exec(file);
			if (!m) return undefined;
			const hoisted = m[1] + m[2];
			// An import cycle back to a module being compared: its own text and imports decide, where it is compared.
			if (within.has(file)) return hoisted;
			const twin = await (async () => {
				// Compared as code: a comment added by the newer version does not tell them apart.
				const code = async (path: string) => (await transform(await readFile(path, 'utf8'), { minify: true, loader: 'js' })).code;
				const [a, b] = await Promise.all([code(file), code(hoisted).catch(() => undefined)]);
				if (a !== b) return undefined;
				for (const [, path] of a.matchAll(IMPORTED)) {
					const [fromNested, fromHoisted] = await Promise.all([resolveFrom(path, dirname(file)), resolveFrom(path, dirname(hoisted))]);
					if (fromNested === undefined || fromHoisted === undefined) return undefined;
					// The same module from both, or a nested module whose own twin is the one the hoisted module imports.
					if (fromNested !== fromHoisted && !(fromNested.startsWith('file:') && `file:${await twinOf(fromNested.slice(5), new Set([...within, file]))}` === fromHoisted)) return undefined;
				}
				return hoisted;
			})();
			if (within.size === 0) twins.set(file, twin);
			return twin;
		};
		// Only an import from a nested copy, or a bare one from a package with node_modules of its own, can reach one.
		const ownModules = new Map<string, boolean>();
		const mayReachNested = (path: string, importer: string): boolean => {
			if (NESTED.test(importer)) return true;
			if (path.startsWith('.') || isAbsolute(path)) return false;
			const root = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(importer)?.[1];
			if (root === undefined) return false;
			if (!ownModules.has(root)) ownModules.set(root, existsSync(join(root, 'node_modules')));
			return ownModules.get(root)!;
		};
		build.onResolve({ filter: /.*/ }, async (args) => {
			if (args.pluginData?.hoisting || !mayReachNested(args.path, args.importer)) return undefined;
			const r = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { hoisting: true } });
			if (r.errors.length > 0 || r.external || r.namespace !== 'file' || !NESTED.test(r.path)) return undefined;
			const hoisted = await twinOf(r.path);
			return hoisted ? { path: hoisted, sideEffects: r.sideEffects } : undefined;
		});
	},
};

/**
 * The esbuild settings of every Lambda bundle (the stack and `npm run bench` use the same):
 * minified CommonJS for Node 24, source maps without sources, and the AWS SDK v3 left to the
 * Lambda runtime, which ships it (@aws-sdk/*, @smithy/*) on NODE_PATH.
 */
export function lambdaBuildOptions(entry: string, outfile: string): BuildOptions {
	return {
		entryPoints: [entry],
		outfile,
		bundle: true,
		platform: 'node',
		target: 'node24',
		format: 'cjs',
		// ESM builds where a package has them, so esbuild can drop what is not used.
		mainFields: ['module', 'main'],
		minify: true,
		// Text as UTF-8, not escaped: the e-mail catalogues' umlauts and dashes take 2–3 bytes, not 4–6.
		charset: 'utf8',
		sourcemap: true,
		sourcesContent: false,
		external: ['@aws-sdk/*', '@smithy/*'],
		plugins: [identicalNestedModules, zodEnglishOnly, zodWithoutJsonSchema, idempotencyWithoutJmespath, xrayWithoutSdkV2, xrayWithoutSamplingRules, xrayWithoutHostPlugins, xrayWhitelistOfUsedServices, xrayPackageNameAndVersion, undiciOfTheRuntime],
		logLevel: 'error',
		metafile: true,
	};
}

/** Bundles one handler into `outDir/index.js` (+ its map); returns the size of index.js in bytes. */
export async function bundleHandler(entry: string, outDir: string): Promise<number> {
	const result = await build(lambdaBuildOptions(entry, join(outDir, 'index.js')));
	return Object.values(result.metafile?.outputs ?? {}).find((o) => o.entryPoint)?.bytes ?? 0;
}

/** The Lambda code of one handler, bundled locally at synth (no Docker). */
export function handlerCode(entry: string): lambda.Code {
	return lambda.Code.fromAsset(join(ROOT, 'lambdas'), {
		assetHashType: AssetHashType.OUTPUT,
		bundling: {
			// Required by the API, never used: local bundling always succeeds or throws.
			image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:24'),
			// Part of the asset's cache key: without it, every handler from lambdas/ would get the
			// first handler's bundle.
			command: ['bundle', relative(ROOT, entry)],
			local: {
				// CDK bundles synchronously and esbuild runs plugins only in its async API: one child process.
				tryBundle(outputDir) {
					const cache = process.env.TEC_BUNDLE_CACHE;
					if (cache && reuseBundle(cache, entry, outputDir)) return true;
					execFileSync(process.execPath, [require.resolve('tsx/cli'), __filename, entry, outputDir], { stdio: ['ignore', 'ignore', 'inherit'] });
					return true;
				},
			},
		},
	});
}

/** A scratch folder for measuring bundles outside a synth. */
export const scratchDir = (name: string) => mkdtempSync(join(tmpdir(), `tec-${basename(name)}-`));

if (require.main === module) {
	const [entry, outDir] = process.argv.slice(2);
	const cache = process.env.TEC_BUNDLE_CACHE;
	build(lambdaBuildOptions(entry, join(outDir, 'index.js')))
		.then((result) => cache && keepBundle(cache, entry, outDir, Object.keys(result.metafile?.inputs ?? {})))
		.catch((error: unknown) => {
			process.stderr.write(`${String(error)}\n`);
			process.exit(1);
		});
}
