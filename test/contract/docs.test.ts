import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README is what a newcomer reads in five minutes (what it is, the two commands, the faces
 * with a picture each, links into docs/); the rest lives in docs/. Every relative link of the
 * README and the docs leads somewhere: a file that exists, and a heading that exists.
 */
const ROOT = join(__dirname, '../..');
const README = join(ROOT, 'README.md');
const PAGES = [README, ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(ROOT, 'docs', f))];
const read = (file: string) => readFileSync(file, 'utf8');

/** The text without fenced code blocks (a link in a code sample is not a link). */
const withoutCode = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

/** A section of the README: from its `## ` heading to the next one. */
function section(heading: string): string {
	const text = read(README);
	const start = text.indexOf(`\n## ${heading}\n`);
	if (start < 0) throw new Error(`README.md has no section "## ${heading}"`);
	const end = text.indexOf('\n## ', start + 1);
	return text.slice(start, end < 0 ? undefined : end);
}

/** GitHub's anchor of a heading: lower case, punctuation dropped (letters, digits, `-`, `_` kept), spaces as `-`. */
export function slug(heading: string): string {
	return heading
		.toLowerCase()
		.replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '')
		.replace(/ /g, '-');
}

/** The anchors of a page's headings, repeated headings numbered as GitHub does (`-1`, `-2`). */
function anchorsOf(file: string): Set<string> {
	const seen = new Map<string, number>();
	const anchors = new Set<string>();
	for (const m of withoutCode(read(file)).matchAll(/^#{1,6} +(.+?) *$/gm)) {
		const base = slug(m[1]);
		const n = seen.get(base) ?? 0;
		seen.set(base, n + 1);
		anchors.add(n === 0 ? base : `${base}-${n}`);
	}
	return anchors;
}

/** The relative links (and images) of a page, outside code: `[text](target)`. */
function linksOf(file: string): string[] {
	const text = withoutCode(read(file)).replace(/`[^`\n]*`/g, (code) => (code.includes('](') ? '' : code));
	return [...text.matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)].map((m) => m[1]).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What is wrong with one link of a page: a missing file, or a heading its page does not have. */
function brokenLink(file: string, target: string): string | undefined {
	const [path, anchor] = target.split('#') as [string, string | undefined];
	const to = path === '' ? file : join(dirname(file), decodeURI(path));
	const where = `${relative(ROOT, file)}: ${target}`;
	if (!existsSync(to)) return `${where} (no such file)`;
	if (anchor !== undefined && to.endsWith('.md') && !anchorsOf(to).has(anchor)) return `${where} (no such heading in ${relative(ROOT, to)})`;
	return undefined;
}

describe('the README: what it is, the two commands, the faces, links into docs/', () => {
	it('is at most 300 lines', () => {
		expect(read(README).split('\n').length).toBeLessThanOrEqual(300);
	});

	it('shows the two commands after npm install: npm start and npm test', () => {
		const start = section('Start');
		expect(start).toMatch(/```sh\nnpm install\nnpm start .*\nnpm test .*\n```/);
	});

	it('shows each face with a picture: the n8n nodes, e-mails from n8n, AWS, the sandbox', () => {
		for (const heading of ['Use in n8n', 'E-mails from n8n', 'Deploy on AWS', 'The sandbox']) {
			expect(section(heading), heading).toMatch(/!\[[^\]]+\]\(docs\/images\/[\w-]+\.png\)/);
		}
	});

	it('"E-mails from n8n" shows the notices template and the received notice, and links the four example workflows', () => {
		const emails = section('E-mails from n8n');
		expect(emails).toContain('](docs/images/n8n-email-notices-workflow.png)');
		expect(emails).toContain('](docs/images/n8n-email-notice-received.png)');
		for (const example of ['email-customer-notices', 'email-daily-digest', 'email-failed-test-alert', 'email-monthly-compliance-report']) {
			expect(emails).toContain(`](examples/${example}.json)`);
		}
		for (const words of ['one item per e-mail', 'dedupeKey', 'Remove Duplicates', 'attachmentFields', 'Send Email', 'Gmail', 'Outlook']) expect(emails).toContain(words);
	});

	it('links every page of docs/', () => {
		const readme = read(README);
		const pages = PAGES.filter((f) => f !== README).map((f) => relative(ROOT, f));
		expect(pages.filter((page) => !readme.includes(`](${page})`))).toEqual([]);
	});
});

describe('the links of the README and docs/*.md', () => {
	it('each relative link points to a file that exists, and each anchor to a heading of that file', () => {
		const links = PAGES.flatMap((file) => linksOf(file).map((target) => ({ file, target })));
		expect(links.length).toBeGreaterThan(50);
		expect(links.map(({ file, target }) => brokenLink(file, target)).filter(Boolean)).toEqual([]);
	});

	it('the check itself finds a missing file and a missing heading', () => {
		expect(brokenLink(README, 'docs/no-such-page.md')).toContain('no such file');
		expect(brokenLink(README, 'docs/aws-deployment.md#no-such-heading')).toContain('no such heading');
		expect(brokenLink(README, '#no-such-heading')).toContain('no such heading');
		expect(brokenLink(README, 'docs/aws-deployment.md#put-the-access-token-in')).toBeUndefined();
	});

	it("anchors are GitHub's: punctuation dropped, spaces as hyphens", () => {
		expect(slug('Alerts locally (`npm start`)')).toBe('alerts-locally-npm-start');
		expect(slug("Many accounts: one deployment, AWS's own fan-out")).toBe('many-accounts-one-deployment-awss-own-fan-out');
		expect(slug('E-mail: build e-mails for Send Email, Gmail and Outlook')).toBe('e-mail-build-e-mails-for-send-email-gmail-and-outlook');
		expect(slug("Compliance figures against the sandbox's record")).toBe('compliance-figures-against-the-sandboxs-record');
	});
});

/** The source a person reads messages or help from (the CLI's help, errors, stack outputs, comments). */
const SOURCE_DIRS = ['bin', 'infra', 'lambdas', 'sandbox', 'client', 'nodes', 'email', 'doctor', 'contract', 'credentials'];
function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? (e.name === 'node_modules' ? [] : sourceFiles(join(dir, e.name))) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** What is wrong with one pointer of the source into the docs: `docs/<page>.md`, with `#anchor` or `, "Heading"` (a heading that starts so). */
function brokenPointer(pointer: string): string | undefined {
	const m = /^(docs\/[\w-]+\.md)(?:#([\w-]+)|, "([^"]+)")?$/.exec(pointer);
	if (!m) return `${pointer} (not a pointer)`;
	const [, page, anchor, heading] = m;
	if (anchor !== undefined) return brokenLink(README, `${page}#${anchor}`);
	if (!existsSync(join(ROOT, page))) return `${pointer} (no such file)`;
	if (heading !== undefined && ![...withoutCode(read(join(ROOT, page))).matchAll(/^#{1,6} +(.+?) *$/gm)].some((h) => h[1].startsWith(heading))) return `${pointer} (no such heading in ${page})`;
	return undefined;
}

describe("the source's pointers into the docs", () => {
	const files = SOURCE_DIRS.flatMap((dir) => sourceFiles(join(ROOT, dir)));

	it("point at the docs page that holds the section, never at the README (it only links to them): the CLI's help, errors, outputs and comments", () => {
		const readme = files.flatMap((file) => read(file).split('\n').map((line, i) => ({ at: `${relative(ROOT, file)}:${i + 1}`, line })).filter(({ line }) => /\bREADME\b/.test(line)));
		expect(readme.map(({ at, line }) => `${at}: ${line.trim()}`)).toEqual([]);
	});

	it('each names a page that exists and, where it names one, a heading of that page', () => {
		const pointers = files.flatMap((file) => [...read(file).matchAll(/docs\/[\w-]+\.md(?:#[\w-]+|, "[^"]+")?/g)].map((m) => ({ file, pointer: m[0] })));
		expect(pointers.length).toBeGreaterThan(10);
		expect(pointers.map(({ file, pointer }) => brokenPointer(pointer) && `${relative(ROOT, file)}: ${brokenPointer(pointer)}`).filter(Boolean)).toEqual([]);
	});

	it('the check itself finds a missing page, anchor and heading', () => {
		expect(brokenPointer('docs/no-such-page.md')).toContain('no such file');
		expect(brokenPointer('docs/alerts.md#no-such-heading')).toContain('no such heading');
		expect(brokenPointer('docs/alerts.md, "No such heading"')).toContain('no such heading');
		expect(brokenPointer('docs/alerts.md#many-accounts')).toBeUndefined();
		expect(brokenPointer('docs/architecture.md, "Many accounts"')).toBeUndefined();
	});
});
