// Copies what tsc does not emit but n8n loads (icons, codex files) from the sources into dist/.
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ASSET = /\.(svg|png)$|\.node\.json$/;
let copied = 0;

function walk(dir) {
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) walk(path);
		else if (ASSET.test(entry.name)) {
			const target = join(root, 'dist', relative(root, path));
			mkdirSync(dirname(target), { recursive: true });
			copyFileSync(path, target);
			copied++;
		}
	}
}

for (const dir of ['nodes', 'credentials']) walk(join(root, dir));
// The tarball holds only what n8n loads: declarations and source maps stay out of it
// (npm applies an .npmignore inside the directories that package.json "files" lists).
writeFileSync(join(root, 'dist', '.npmignore'), '*.d.ts\n*.map\n');
console.log(`copy-assets: ${copied} files copied into dist/`);
