import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './processes.js';

const readme = () => readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/** The README's shell blocks (```sh, ```bash or ```shell), in order. */
export const readmeShellBlocks = (): string[] =>
  [...readme().matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');

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
