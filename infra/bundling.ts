import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { build, type BuildOptions, type Plugin } from 'esbuild';

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
 * undici's main module loads all of undici (fetch, WebSocket, cache, mocks: ~520 KiB); the
 * Lambdas use its `request` only. `lambdas/bundling/undici.ts` exports that from undici's own
 * modules (same Agent, same HTTP/1.1 client), and a Lambda bundle resolves `undici` to it.
 */
const undiciRequestOnly: Plugin = {
	name: 'undici-request-only',
	setup(build) {
		build.onResolve({ filter: /^undici$/ }, (args) =>
			args.importer.includes(join('lambdas', 'bundling')) ? undefined : { path: join(ROOT, 'lambdas', 'bundling', 'undici.ts') },
		);
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
		sourcemap: true,
		sourcesContent: false,
		external: ['@aws-sdk/*', '@smithy/*'],
		plugins: [zodEnglishOnly, undiciRequestOnly],
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
	bundleHandler(entry, outDir).catch((error: unknown) => {
		process.stderr.write(`${String(error)}\n`);
		process.exit(1);
	});
}
