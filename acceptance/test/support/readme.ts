import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { REPO_ROOT } from './repository.js';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

const README = 'README.md';

/** The user's pages: every Markdown file directly under docs/ (the decisions are records, not pages). */
export const docsPages = (): string[] =>
  readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
    .sort();

/** The records index: every decision record, with its status. */
const RECORDS_INDEX = 'docs/decisions/README.md';

/** The decision records, one dated file each (the index is not one). */
export const decisionRecords = (): string[] =>
  readdirSync(join(REPO_ROOT, 'docs', 'decisions'))
    .filter((name) => /^\d{4}-\d{2}-\d{2}-.+\.md$/.test(name))
    .map((name) => `docs/decisions/${name}`)
    .sort();

/** Every Markdown file a reader of the repository is sent to, the decision records and their index included. */
export const documentationFiles = (): string[] => [
  README,
  'ARCHITECTURE.md',
  'DEVELOPERS.md',
  'SECURITY.md',
  'packages/client/README.md',
  ...docsPages(),
  RECORDS_INDEX,
  ...decisionRecords(),
];

/**
 * The index's rows, `| [title](file.md) | status |`: each record it links, with the status the
 * row gives it.
 */
export const indexedRecords = (): { record: string; status: string }[] =>
  [...read(RECORDS_INDEX).matchAll(/^\|\s*\[[^\]]+\]\(([^)#\s]+\.md)\)\s*\|\s*(.+?)\s*\|\s*$/gm)].map((match) => ({
    record: `docs/decisions/${match[1] ?? ''}`,
    status: match[2] ?? '',
  }));

/** Folders of the workspace whose sources may name a record in a comment. */
const SOURCE_FOLDERS = ['apps', 'packages', 'tools', 'bench', 'examples', 'acceptance', 'deploy'];
const SKIPPED = new Set(['node_modules', 'dist', '.turbo', 'coverage']);

const sourcesUnder = (folder: string): string[] =>
  readdirSync(join(REPO_ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sourcesUnder(path);
    return /\.(ts|tsx|mjs|js|cjs|conf|ya?ml)$/.test(entry.name) ? [path] : [];
  });

/** Every record a source file names (`docs/decisions/<date>-<name>.md`) that does not exist, as `file: record`. */
export const missingRecordsNamedInSources = (): string[] =>
  SOURCE_FOLDERS.flatMap(sourcesUnder).flatMap((file) =>
    [...read(file).matchAll(/docs\/decisions\/([\w.-]+\.md)/g)]
      .map((match) => `docs/decisions/${match[1] ?? ''}`)
      .filter((record) => !existsSync(join(REPO_ROOT, record)))
      .map((record) => `${file}: ${record}`),
  );

/** Whether a record says at its top (before its first section) that a later one superseded it. */
export const saysItIsSuperseded = (record: string): boolean => /supersed/i.test(read(record).split(/^## /m)[0] ?? '');

/** A file's shell blocks (```sh, ```bash or ```shell), in order: the ones a reader pastes. */
export const shellBlocks = (path: string): string[] =>
  [...read(path).matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');

/** The README's shell blocks, in order. */
export const readmeShellBlocks = (): string[] => shellBlocks(README);

/** The pages under docs/ the README links, in the order it first links them: the order a reader follows. */
export const pagesTheReadmeLinks = (): string[] => [
  ...new Set([...read(README).matchAll(/\]\((docs\/[^/)#\s]+\.md)(?:#[^)\s]*)?\)/g)].map((match) => match[1] ?? '')),
];

const withoutComment = (line: string) => line.replace(/\s+#.*$/, '').trim();

/**
 * The two set-up commands the README starts with, each `<install> && <command>`: the one that
 * runs the service and the one that runs the tests.
 */
export const readmeSetUp = () => {
  const [first = ''] = readmeShellBlocks();
  const lines = first.split('\n').map(withoutComment).filter((line) => line !== '');
  const ending = (word: string) => {
    const line = lines.find((candidate) => candidate.endsWith(` ${word}`));
    if (line === undefined) throw new Error(`The README's first block has no command ending in "${word}":\n${first}`);
    const [install = '', command = ''] = line.split(' && ');
    return { line, install, command };
  };
  return { block: first, run: ending('start'), test: ending('check') };
};

/**
 * The HTTP status each curl command in a block promises: the first three-digit status in the
 * comment lines right above it. A curl without one promises nothing, and gets undefined.
 */
export const promisedStatuses = (block: string): { command: string; status: number | undefined }[] => {
  const lines = block.split('\n');
  return lines.flatMap((line, index) => {
    if (!line.startsWith('curl ')) return [];
    let comment = '';
    for (let above = index - 1; above >= 0 && lines[above]?.startsWith('#'); above -= 1) comment = `${lines[above] ?? ''}\n${comment}`;
    const status = /\b([1-5][0-9]{2})\b/.exec(comment)?.[1];
    return [{ command: line, status: status === undefined ? undefined : Number(status) }];
  });
};

/** Markdown without its fenced code: links and headings are read from the prose only. */
const prose = (text: string) => text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');

/** The anchor GitHub gives a heading: lower case, punctuation dropped, each space a hyphen. */
const headingAnchor = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors a Markdown file offers: its headings' and its explicit `<a id="…">`s. */
const anchorsOf = (path: string): Set<string> => {
  const text = prose(read(path));
  return new Set([
    ...[...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => headingAnchor(match[1] ?? '')),
    ...[...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((match) => match[1] ?? ''),
  ]);
};

/**
 * Every relative link in a Markdown file that leads nowhere: to a path that does not exist, or to
 * a section a Markdown file does not have. Each is described as `file: target (why)`.
 */
export const brokenLinks = (path: string): string[] =>
  // Inline code, such as a link written out as an example, is not a link.
  [...prose(read(path)).replace(/`[^`\n]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)].flatMap((match) => {
    const target = match[1] ?? '';
    if (/^[a-z]+:/i.test(target)) return [];
    const [file = '', anchor] = target.split('#');
    const linked = file === '' ? path : normalize(join(dirname(path), file));
    if (linked.startsWith('..') || !existsSync(join(REPO_ROOT, linked))) return [`${path}: ${target} (no such file)`];
    if (anchor === undefined) return [];
    if (!linked.endsWith('.md') || statSync(join(REPO_ROOT, linked)).isDirectory()) return [`${path}: ${target} (a section of a file that has none)`];
    return anchorsOf(linked).has(anchor) ? [] : [`${path}: ${target} (no such section)`];
  });

const packageJson = (folder: string) =>
  JSON.parse(read(join(folder, 'package.json'))) as { name: string; scripts?: Record<string, string> };

/** The workspace's packages by name, from the folders pnpm-workspace.yaml lists. */
const workspacePackages = (): Map<string, { scripts: Record<string, string> }> => {
  const listed = /^packages:\n((?:\s+-\s+\S+\n)+)/m.exec(read('pnpm-workspace.yaml'))?.[1] ?? '';
  const patterns = [...listed.matchAll(/-\s+(\S+)/g)].map((match) => match[1] ?? '');
  const folders = patterns.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(join(REPO_ROOT, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory() && existsSync(join(REPO_ROOT, pattern.slice(0, -2), entry.name, 'package.json')))
          .map((entry) => join(pattern.slice(0, -2), entry.name))
      : [pattern],
  );
  return new Map(folders.map((folder) => [packageJson(folder).name, { scripts: packageJson(folder).scripts ?? {} }]));
};

/** pnpm's own commands the documentation uses, which run whatever the scripts are. */
const PNPM_COMMANDS = new Set(['install', 'pack', 'exec', 'run']);

/**
 * Every `npx pnpm [--filter <package>] <name>` in a file that names nothing pnpm would run: not
 * one of pnpm's own commands, not a script of the root (or of the filtered package), and not a
 * bin the root's install links (such as `keys`).
 */
export const unknownPnpmCommands = (path: string): string[] => {
  const packages = workspacePackages();
  const rootScripts = packageJson('.').scripts ?? {};
  return [...read(path).matchAll(/npx pnpm(?:\s+--filter\s+(\S+))?\s+([a-z][\w:-]*)/g)].flatMap((match) => {
    const [command = '', filter, name = ''] = match;
    if (PNPM_COMMANDS.has(name)) return [];
    if (filter !== undefined) {
      const scripts = packages.get(filter)?.scripts;
      if (scripts === undefined) return [`${path}: ${command} (no workspace package ${filter})`];
      return name in scripts ? [] : [`${path}: ${command} (no script ${name} in ${filter})`];
    }
    return name in rootScripts || existsSync(join(REPO_ROOT, 'node_modules', '.bin', name)) ? [] : [`${path}: ${command} (no such script or bin)`];
  });
};
