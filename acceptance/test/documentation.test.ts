import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  brokenLinks,
  decisionRecords,
  docsPages,
  documentationFiles,
  indexedRecords,
  missingRecordsNamedInSources,
  pagesTheReadmeLinks,
  saysItIsSuperseded,
  unknownPnpmCommands,
} from './support/readme.js';
import { REPO_ROOT } from './support/repository.js';

/*
 * The documentation as a reader follows it, read from the files alone: no service, no database.
 * Every relative link leads to a file, and a `#section` to a heading, that exists; the records
 * index lists each record once with its status.
 */

const lines = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8').split('\n').length;

/** A record's status in the index: accepted, or superseded (in part) by the record that did it. */
const STATUS = /^(accepted|superseded( in part)? by \[[^\]]+\]\([^)\s]+\.md\))/;

describe('the documentation, read', () => {
  it('has every page under docs/ linked from the README, so each is read, and pasted, in its order', () => {
    expect([...pagesTheReadmeLinks()].sort()).toEqual(docsPages());
  });

  it('keeps the README a front page, the map and the developers\' notes short enough to read at a sitting', () => {
    expect(lines('README.md')).toBeLessThanOrEqual(250);
    expect(lines('ARCHITECTURE.md')).toBeLessThanOrEqual(210);
    expect(lines('DEVELOPERS.md')).toBeLessThanOrEqual(200);
  });

  it.for(documentationFiles())('%s links only to files and sections that exist', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it.for(['README.md', 'ARCHITECTURE.md', 'DEVELOPERS.md', 'packages/client/README.md', ...docsPages()])('%s names only pnpm scripts and bins that exist', (file) => {
    expect(unknownPnpmCommands(file)).toEqual([]);
  });
});

describe('the decision records', () => {
  it('are each listed once in the index', () => {
    expect(indexedRecords().map(({ record }) => record).sort()).toEqual(decisionRecords());
  });

  it('each have a status in the index: accepted, or superseded by the record that did it', () => {
    expect(indexedRecords().filter(({ status }) => !STATUS.test(status))).toEqual([]);
  });

  it('are each where a comment of the code that names one says', () => {
    expect(missingRecordsNamedInSources()).toEqual([]);
  });

  it('are superseded in the index exactly when they say so at their top', () => {
    const disagreeing = indexedRecords().filter(({ record, status }) => saysItIsSuperseded(record) !== status.startsWith('superseded'));
    expect(disagreeing).toEqual([]);
  });
});
