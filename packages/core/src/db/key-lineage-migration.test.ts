import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate as migrateSqlite } from 'drizzle-orm/better-sqlite3/migrator';
import pg from 'pg';
import { afterEach, describe, expect } from 'vitest';
import { addPet } from '../pets/create/add-pet.js';
import { fingerprintOf } from '../pets/create/idempotency.js';
import type { Database } from '../storage/database.js';
import { it } from '../testing/fixtures.js';
import { skipOnSqliteElsewhere } from '../testing/sqlite-only.js';
import { migrate as migratePostgres } from './postgres/migrate.js';
import { openPostgresDatabase } from './postgres/open-postgres-database.js';
import { openSqliteDatabase } from './sqlite/open-sqlite-database.js';

// Idempotency records used to belong to one key's id; they belong to its lineage now. A database
// made before keeps its rows: each key gets the lineage of the key that began its rotations, and
// each record the lineage of the key that wrote it, so a retry sent with the rotated key replays.

const MIGRATIONS = fileURLToPath(new URL('../../drizzle', import.meta.url));
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The engine's committed migrations but the last, which made lineages: the schema as it was. */
const migrationsBeforeLineages = (engine: 'sqlite' | 'postgres') => {
  const folder = mkdtempSync(join(tmpdir(), 'petstore-migrations-'));
  folders.push(folder);
  cpSync(join(MIGRATIONS, engine), folder, { recursive: true });
  const journalFile = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
  expect(journal.entries.at(-1)?.tag).toMatch(/_key_lineage$/);
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, -1) }));
  return folder;
};

const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 0, minute));
const ONE = { name: 'one', categoryId: 1, status: 'available' } as const;

/**
 * Keys 1 → 2 → 3 (two rotations), key 4 of its own; records written by key 1 ("a"), by key 2
 * ("b", and "both", which key 3 wrote again later: the bug this migration ends) and by key 4 ("a").
 */
const OLD_ROWS = [
  `insert into pets (name, category_id, status) values ('one', 1, 'available'), ('two', 1, 'available'), ('three', 1, 'available'), ('four', 1, 'available'), ('five', 1, 'available')`,
  `insert into api_keys (name, public_id, secret_hash, created_at, rotated_at, rotated_from) values
     ('ci', '00000000000a', 'h1', $1, $1, null), ('ci', '00000000000b', 'h2', $2, $2, 1), ('ci', '00000000000c', 'h3', $3, null, 2), ('other', '00000000000d', 'h4', $1, null, null)`,
  `insert into idempotency_keys (api_key_id, key, fingerprint, pet_id, created_at) values
     (1, 'a', '${fingerprintOf(ONE)}', 1, $1), (2, 'b', 'f2', 2, $2), (2, 'both', 'f3', 3, $2), (3, 'both', 'f3', 4, $3), (4, 'a', 'f1', 5, $1)`,
];

/** What the migrated database holds, and a retry with key 3 of the record key 1 wrote. */
const expectCarriedOver = async (db: Database, records: { key_lineage: string; key: string; pet_id: number | string }[]) => {
  expect((await db.apiKeys.list()).map((key) => [key.id, key.lineage])).toEqual([
    [1, '00000000000a'],
    [2, '00000000000a'],
    [3, '00000000000a'],
    [4, '00000000000d'],
  ]);
  expect(records.map((row) => [row.key_lineage, row.key, Number(row.pet_id)])).toEqual([
    ['00000000000a', 'a', 1],
    ['00000000000a', 'b', 2],
    ['00000000000a', 'both', 3],
    ['00000000000d', 'a', 5],
  ]);
  const retry = await addPet(db.pets, { pet: ONE, keyLineage: '00000000000a', idempotencyKey: 'a', now: at(30) });
  expect(retry).toMatchObject({ replayed: true, pet: { id: 1 } });
  // Ids go on from the last one: a key made now is key 5.
  expect((await db.apiKeys.insert({ name: 'new', publicId: '00000000000e', secretHash: 'h5', createdAt: at(31), expiresAt: null, lineage: '00000000000e' }))?.id).toBe(5);
};

describe('the migration to key lineages', () => {
  it('carries keys and idempotency records over on SQLite', async ({ skip }) => {
    skipOnSqliteElsewhere(skip);
    const folder = mkdtempSync(join(tmpdir(), 'petstore-store-'));
    folders.push(folder);
    const file = join(folder, 'petstore.db');
    const old = new BetterSqlite3(file);
    old.pragma('foreign_keys = ON');
    migrateSqlite(drizzle({ client: old }), { migrationsFolder: migrationsBeforeLineages('sqlite') });
    const [pets, keys, records] = OLD_ROWS.map((statement) => old.prepare(statement.replace(/\$(\d)/g, '@m$1')));
    pets?.run();
    keys?.run({ m1: at(1).getTime(), m2: at(2).getTime(), m3: at(3).getTime() });
    records?.run({ m1: at(1).getTime(), m2: at(2).getTime(), m3: at(3).getTime() });
    old.close();

    const db = openSqliteDatabase(file);
    const check = new BetterSqlite3(file, { readonly: true });
    const rows = check.prepare('select key_lineage, key, pet_id from idempotency_keys order by key_lineage, key').all() as { key_lineage: string; key: string; pet_id: number }[];
    check.close();
    try {
      await expectCarriedOver(db, rows);
    } finally {
      await db.close();
    }
  });

  it('carries keys and idempotency records over on PostgreSQL', async ({ scratchPostgres: { url } }) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await migratePostgres(client as unknown as pg.PoolClient, migrationsBeforeLineages('postgres'));
      await client.query(OLD_ROWS[0] ?? '');
      await client.query(OLD_ROWS[1] ?? '', [at(1), at(2), at(3)]);
      await client.query(OLD_ROWS[2] ?? '', [at(1), at(2), at(3)]);
      const db = await openPostgresDatabase(url);
      try {
        // pg reads a bigint as a string.
        const { rows } = await client.query<{ key_lineage: string; key: string; pet_id: string }>('select key_lineage, key, pet_id from idempotency_keys order by key_lineage, key');
        await expectCarriedOver(db, rows);
      } finally {
        await db.close();
      }
    } finally {
      await client.end();
    }
  });
});
