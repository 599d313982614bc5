// npm rejects a provenance statement when package.json's repository is not the GitHub repository
// the publishing workflow runs in, and only after the whole build and test. The publish workflow
// runs this first: it names each field that points elsewhere and what it should be.
//   GITHUB_REPOSITORY=owner/name node scripts/checkRepository.mjs [package.json]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** owner/name (lower case) of a GitHub repository URL in any of npm's forms; undefined for anything else. */
export function githubRepository(url) {
	if (typeof url !== 'string') return undefined;
	const full = /^(?:git\+)?(?:https?:\/\/|git:\/\/|ssh:\/\/git@|git@)(?:www\.)?github\.com[/:]([\w.-]+)\/([\w.-]+?)(?:\.git)?(?:[/#?].*)?$/i.exec(url);
	const short = /^(?:github:)?([\w.-]+)\/([\w.-]+)$/.exec(url);
	const m = full ?? short;
	return m ? `${m[1]}/${m[2]}`.toLowerCase() : undefined;
}

/** The fields of package.json that do not point at `expected` (owner/name), with what they hold. */
export function mismatches(pkg, expected) {
	const want = expected.toLowerCase();
	const fields = {
		'repository.url': typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url,
		homepage: pkg.homepage,
		'bugs.url': typeof pkg.bugs === 'string' ? pkg.bugs : pkg.bugs?.url,
	};
	return Object.entries(fields)
		.filter(([, value]) => githubRepository(value) !== want)
		.map(([field, value]) => ({ field, value: value ?? '(missing)' }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
	const file = process.argv[2] ?? 'package.json';
	const expected = process.env.GITHUB_REPOSITORY;
	if (!expected) {
		console.error('GITHUB_REPOSITORY is not set: this check runs in the GitHub Actions publish workflow');
		process.exit(1);
	}
	const wrong = mismatches(JSON.parse(readFileSync(file, 'utf8')), expected);
	for (const { field, value } of wrong) {
		console.error(
			`::error file=${file},title=package.json does not name this repository::${field} is ${value}, but this workflow publishes from ${expected}. Set it to https://github.com/${expected} (repository.url as git+https://github.com/${expected}.git) before the first release: npm rejects provenance for another repository.`,
		);
	}
	if (wrong.length > 0) process.exit(1);
	console.log(`package.json names ${expected}`);
}
