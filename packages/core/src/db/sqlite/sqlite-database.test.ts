import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_TIMEOUTS } from '../timeouts.js';
import { SQLITE_PAGE_CACHE_KIB, configureConnection, openSqliteDatabase } from './open-sqlite-database.js';

describe('SQLite file', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'petstore-db-'));
  });
  afterEach(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it('creates the folder, runs the migrations and keeps data across reopening', async () => {
    const file = join(folder, 'nested', 'petstore.db');
    const first = openSqliteDatabase(file);
    const rex = await first.pets.insert({ name: 'Rex', categoryId: 1, status: 'pending' });
    await first.close();

    const second = openSqliteDatabase(file);
    expect(await second.pets.findById(rex.id)).toEqual(rex);
    await second.close();
  });

  it('never reuses the id of the newest animal, even once its row is gone', async () => {
    const file = join(folder, 'petstore.db');
    const db = openSqliteDatabase(file);
    const rex = await db.pets.insert({ name: 'Rex', categoryId: 1, status: 'sold' });
    await db.close();
    // No operation deletes animals; this removes the row behind the service's back.
    const raw = new BetterSqlite3(file);
    raw.prepare('delete from pets where id = ?').run(rex.id);
    raw.close();

    const reopened = openSqliteDatabase(file);
    const next = await reopened.pets.insert({ name: 'Tom', categoryId: 1, status: 'sold' });
    expect(next.id).toBeGreaterThan(rex.id);
    await reopened.close();
  });

  it('leaves the file in WAL journaling mode', async () => {
    const file = join(folder, 'petstore.db');
    await openSqliteDatabase(file).close();
    const raw = new BetterSqlite3(file);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
  });

  it("configures each connection: its own page cache size, not better-sqlite3's, NORMAL syncs, foreign keys, the busy timeout", () => {
    const raw = new BetterSqlite3(join(folder, 'petstore.db'));
    const builtIn = raw.pragma('cache_size', { simple: true });
    configureConnection(raw, DEFAULT_DATABASE_TIMEOUTS);
    // A negative cache_size is a size in KiB rather than in pages.
    expect(raw.pragma('cache_size', { simple: true })).toBe(-SQLITE_PAGE_CACHE_KIB);
    expect(builtIn).not.toBe(-SQLITE_PAGE_CACHE_KIB);
    expect(raw.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(raw.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(raw.pragma('busy_timeout', { simple: true })).toBe(DEFAULT_DATABASE_TIMEOUTS.statementMs);
    raw.close();
  });

  it('refuses a status outside the enumeration at the table level', async () => {
    const file = join(folder, 'petstore.db');
    await openSqliteDatabase(file).close();
    const raw = new BetterSqlite3(file);
    expect(() =>
      raw.prepare("insert into pets (name, category_id, status) values ('Rex', 1, 'lost')").run(),
    ).toThrow(/CHECK constraint failed/);
    raw.close();
  });
});
