import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { describe, expect } from 'vitest';
import { addPet } from './add-pet.js';
import { IDEMPOTENCY_WINDOW_MS } from './idempotency.js';
import { startIdempotencyPruning } from './idempotency-pruning.js';
import { test } from '../../testing/fixtures.js';
import { skipOnSqliteElsewhere } from '../../testing/sqlite-only.js';
import { type DatabaseLocation, openDatabase } from '../../db/open-database.js';

interface Store {
  location: DatabaseLocation;
  /** The keys of the idempotency records, read behind the service's back. */
  keys(): Promise<string[]>;
}

/**
 * Each engine's `test`, with a `store`: where the database lives rather than an opened one, since
 * the pruning under test is started by openDatabase, which testOn's engines do not go through.
 */
const STORES = [
  {
    name: 'SQLite',
    test: test.extend(
      'store',
      ({ skip }, { onCleanup }): Store => {
        skipOnSqliteElsewhere(skip);
        const folder = mkdtempSync(join(tmpdir(), 'petstore-pruning-'));
        onCleanup(() => {
          rmSync(folder, { recursive: true, force: true });
        });
        const sqliteFile = join(folder, 'petstore.db');
        return {
          location: { sqliteFile },
          keys: async () => {
            const sqlite = new BetterSqlite3(sqliteFile, { readonly: true });
            const rows = sqlite.prepare('select key from idempotency_keys order by key').all() as { key: string }[];
            sqlite.close();
            return rows.map((row) => row.key);
          },
        };
      },
    ),
  },
  {
    name: 'PostgreSQL',
    test: test.extend('store', ({ scratchPostgres: { url } }): Store => ({
      location: { url, sqliteFile: '', connections: { pool: 2 } },
      keys: async () => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        const { rows } = await client.query<{ key: string }>('select key from idempotency_keys order by key');
        await client.end();
        return rows.map((row) => row.key);
      },
    })),
  },
];

describe.each(STORES)('a $name database, pruned as the service prunes it', (engine) => {
  const it = engine.test.extend('db', async ({ store }, { onCleanup }) => {
    const db = await openDatabase(store.location);
    const pruning = startIdempotencyPruning(db.pets, 25);
    onCleanup(async () => {
      await pruning.stop();
      await db.close();
    });
    await db.apiKeys.insert({ name: 'one', publicId: 'one000000000', secretHash: '00', createdAt: new Date(), expiresAt: null, lineage: 'one000000000' });
    return db;
  });

  it('prunes records older than 24 hours in the background, and keeps the others', async ({ db, store }) => {
    const ago = (ms: number) => new Date(Date.now() - ms);
    const add = (idempotencyKey: string, now: Date) =>
      addPet(db.pets, { pet: { name: 'Rex', categoryId: 1, status: 'available' }, keyLineage: 'one000000000', idempotencyKey, now });
    await add('day-and-a-second-old', ago(IDEMPOTENCY_WINDOW_MS + 1_000));
    await add('minute-short-of-a-day-old', ago(IDEMPOTENCY_WINDOW_MS - 60_000));
    await add('new', new Date());
    await expect.poll(() => store.keys(), { timeout: 5_000, interval: 25 }).toEqual(['minute-short-of-a-day-old', 'new']);
  });
});
