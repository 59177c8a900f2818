import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKUP_PAGES_PER_STEP, BackupError, backupSqliteFile } from './backup.js';
import { openSqliteDatabase, storeFilesOpenToOthers } from './open-sqlite-database.js';
import { seedSqliteStore as seedStore } from '../../testing/seed-sqlite-store.js';

describe('backupSqliteFile', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'petstore-backup-'));
  });
  afterEach(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it('copies the store into one self-contained file that opens as a store of its own', async () => {
    const live = join(folder, 'live.db');
    await seedStore(live, 1_000);
    const copy = join(folder, 'copy.db');

    const result = await backupSqliteFile(live, copy);
    expect(result).toMatchObject({ animals: 1_000, pages: expect.any(Number) });
    // No partial file stays behind, and the copy needs no log beside it.
    expect(readdirSync(folder).filter((name) => !name.startsWith('live.db'))).toEqual(['copy.db']);
    const raw = new BetterSqlite3(copy, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('delete');
    raw.close();

    const reopened = openSqliteDatabase(copy);
    expect(await reopened.pets.findById(1_000)).toMatchObject({ name: 'seed 1000' });
    await reopened.close();
  });

  it('finishes while another connection commits between every two steps, holding what was committed before it began', async () => {
    const live = join(folder, 'live.db');
    const pages = await seedStore(live, 200_000);
    expect(pages).toBeGreaterThan(2 * BACKUP_PAGES_PER_STEP);
    const service = openSqliteDatabase(live);
    const before = await service.pets.insert({ name: 'before', categoryId: 1, status: 'sold' });

    // A commit on every turn of the event loop, so between every two of the backup's steps.
    let writing = true;
    let commits = 0;
    // The insert in flight: the store closes only once it has committed.
    let inFlight: Promise<void> = Promise.resolve();
    const write = () => {
      if (!writing) return;
      inFlight = service.pets.insert({ name: 'during', categoryId: 1, status: 'pending' }).then(() => {
        commits += 1;
        setImmediate(write);
      });
    };
    write();
    const finished = backupSqliteFile(live, join(folder, 'copy.db'));
    // A backup that starts again at every commit would still be copying when this fires.
    const outcome = await Promise.race([finished, new Promise((resolve) => setTimeout(resolve, 10_000, 'still copying'))]);
    writing = false;
    await finished.catch(() => undefined);
    await inFlight;
    await service.close();

    expect(outcome).toMatchObject({ animals: expect.any(Number) });
    expect(commits).toBeGreaterThan(0);
    const copy = new BetterSqlite3(join(folder, 'copy.db'), { readonly: true });
    expect(copy.prepare('select name from pets where id = ?').pluck().get(before.id)).toBe('before');
    copy.close();
  });

  it('stopped while it copies, leaves neither the target nor a partial file', async () => {
    const live = join(folder, 'live.db');
    const pages = await seedStore(live, 200_000);
    expect(pages).toBeGreaterThan(2 * BACKUP_PAGES_PER_STEP);
    const copy = join(folder, 'copy.db');

    const stop = new AbortController();
    // Timers run between the backup's steps: stop once the partial copy exists.
    const watch = setInterval(() => {
      if (readdirSync(folder).some((name) => name.endsWith('.partial'))) stop.abort();
    }, 0);
    const stopped = await backupSqliteFile(live, copy, { signal: stop.signal }).catch((error: unknown) => error);
    clearInterval(watch);

    expect(stop.signal.aborted).toBe(true);
    expect(stopped).toBeInstanceOf(BackupError);
    expect((stopped as BackupError).refusal).toBe('interrupted');
    expect(readdirSync(folder).filter((name) => !name.startsWith('live.db'))).toEqual([]);
  });

  it('refuses a target that is not a regular file, even told to replace it: a FIFO, a folder, a link', async () => {
    const live = join(folder, 'live.db');
    await seedStore(live, 10);
    const fifo = join(folder, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const inside = join(folder, 'inside');
    mkdirSync(inside);
    const link = join(folder, 'link.db');
    writeFileSync(join(folder, 'elsewhere.db'), '');
    symlinkSync(join(folder, 'elsewhere.db'), link);
    for (const [target, kind] of [[fifo, 'a FIFO'], [inside, 'a folder'], [link, 'a symbolic link']] as const) {
      const refusal = await backupSqliteFile(live, target, { overwrite: true }).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(BackupError);
      expect(refusal).toMatchObject({ refusal: 'not-a-file', message: expect.stringContaining(kind) as string });
    }
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
});

describe('the live SQLite store', () => {
  it("is its user's alone: folder 0700, file, -wal and -shm 0600, whatever the umask; a looser one is named", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'petstore-private-'));
    const previous = process.umask(0o022);
    try {
      const file = join(folder, 'data', 'petstore.db');
      const db = openSqliteDatabase(file);
      const mode = (path: string) => statSync(path).mode & 0o777;
      expect(mode(join(folder, 'data'))).toBe(0o700);
      for (const suffix of ['', '-wal', '-shm']) expect(mode(`${file}${suffix}`), suffix).toBe(0o600);
      expect(storeFilesOpenToOthers(file)).toEqual([]);
      chmodSync(file, 0o644);
      expect(storeFilesOpenToOthers(file)).toEqual([{ path: file, mode: '0644' }]);
      await db.close();
    } finally {
      process.umask(previous);
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
