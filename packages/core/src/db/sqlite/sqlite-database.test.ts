import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_TIMEOUTS } from '../../storage/timeouts.js';
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

  it('commits creates read together as one transaction, their ids in the order they came', async () => {
    const file = join(folder, 'petstore.db');
    const db = openSqliteDatabase(file);
    const logSize = () => statSync(`${file}-wal`).size;
    const named = (prefix: string) => Array.from({ length: 40 }, (_, index) => ({ name: `${prefix}${index}`, categoryId: 1, status: 'available' as const }));

    const before = logSize();
    for (const pet of named('alone')) await db.pets.insert(pet);
    const apart = logSize() - before;
    const together = await Promise.all(named('together').map((pet) => db.pets.insert(pet)));
    const grouped = logSize() - before - apart;

    // Each commit appends at least one page to the log: forty of them, against one group's few.
    expect(apart).toBeGreaterThanOrEqual(40 * 4096);
    expect(grouped).toBeLessThan(apart / 10);
    expect(together.map((pet) => pet.name)).toEqual(named('together').map((pet) => pet.name));
    expect(together.map((pet) => pet.id)).toEqual([...together.map((pet) => pet.id)].sort((a, b) => a - b));
    expect(await db.pets.page({ afterId: (together[0]?.id ?? 0) - 1, take: 100 })).toEqual(together);
    await db.close();
  });

  it('fails every create of a group whose commit fails, and commits none of them', async () => {
    const file = join(folder, 'petstore.db');
    const db = openSqliteDatabase(file, { connectMs: 100, statementMs: 100 });
    await db.pets.insert({ name: 'Rex', categoryId: 1, status: 'available' });
    // Another connection holds the write lock past the busy timeout: the group cannot commit.
    const holder = new BetterSqlite3(file);
    holder.prepare('begin immediate').run();
    const outcomes = await Promise.allSettled(['Tom', 'Kit'].map((name) => db.pets.insert({ name, categoryId: 1, status: 'available' })));
    holder.prepare('rollback').run();
    holder.close();
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect((await db.pets.page({ afterId: 0, take: 10 })).map((pet) => pet.name)).toEqual(['Rex']);
    await db.close();
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
