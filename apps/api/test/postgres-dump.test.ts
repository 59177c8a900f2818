import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKeys, openDatabase } from '@petstore/core';
import { createScratchPostgresDatabase } from '@petstore/core/testing';
import { describe, expect } from 'vitest';
import { TEST_ENGINE, it } from '../src/testing/index.js';
import { REPO_ROOT, collect, spawnCommand } from './support/processes.js';

// docs/operating.md's backup of a store on PostgreSQL, as a reader pastes it: the dump holds key
// hashes, key names and the audit trail, so it must be readable by its owner only, whatever the
// shell's umask, and it must restore.

/** The commands of "Backups, On PostgreSQL", one a line, with the placeholders' URLs as written. */
const documented = (() => {
  const operating = readFileSync(join(REPO_ROOT, 'docs', 'operating.md'), 'utf8');
  const section = operating.slice(operating.indexOf('### On PostgreSQL'));
  return (/```text\n([^`]*)```/.exec(section)?.[1] ?? '').split('\n').filter((line) => line !== '');
})();
const PLACEHOLDER = 'postgres://user:password@host:5432/petstore';
const lineOf = (command: string) => documented.find((line) => line.includes(command)) ?? '';

describe.runIf(TEST_ENGINE === 'postgres')('a store on PostgreSQL, backed up as docs/operating.md says', () => {
  it('dumps to a file readable by its owner only under a shell umask of 022, which restores every key', async ({ storage }) => {
    const url = storage.env.DATABASE_URL ?? '';
    // sqliteFile: unused, the URL names PostgreSQL.
    const db = await openDatabase({ url, sqliteFile: ':memory:' });
    await createApiKeys(db.apiKeys).create('ops');
    await db.close();
    const folder = mkdtempSync(join(tmpdir(), 'petstore-dump-'));
    const restored = await createScratchPostgresDatabase();
    try {
      const dump = lineOf('pg_dump ').replaceAll(`"${PLACEHOLDER}"`, `"${url}"`);
      expect(dump).toContain(url);
      const dumped = await collect(spawnCommand('sh', ['-c', `umask 022; ${dump}`], {}, folder));
      expect([dumped.code, dumped.stderr]).toEqual([0, '']);
      expect((statSync(join(folder, 'petstore.dump')).mode & 0o777).toString(8)).toBe('600');

      const restore = lineOf('pg_restore ').replaceAll(`"${PLACEHOLDER}_restored"`, `"${restored.url}"`);
      expect(restore).toContain(restored.url);
      const restoring = await collect(spawnCommand('sh', ['-c', restore], {}, folder));
      expect(restoring.code, restoring.stderr).toBe(0);
      const again = await openDatabase({ url: restored.url, sqliteFile: ':memory:' });
      expect((await again.apiKeys.list()).map((key) => key.name)).toEqual(['ops']);
      await again.close();
    } finally {
      rmSync(folder, { recursive: true, force: true });
      await restored.drop();
    }
  });
});
