import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyQueries } from './api-key-records.js';
import { openSqliteDatabase } from './open-sqlite-database.js';
import { petQueries } from './pet-records.js';
import * as schema from './schema.js';

// Every query a request runs must reach its rows through an index: a page or a key lookup then
// costs the same with a thousand animals as with a million.
let folder: string;
let sqlite: BetterSqlite3.Database;
let db: ReturnType<typeof drizzle<typeof schema>>;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'petstore-plans-'));
  const file = join(folder, 'petstore.db');
  await openSqliteDatabase(file).close(); // the real migrations
  sqlite = new BetterSqlite3(file);
  db = drizzle({ client: sqlite, schema });
});
afterAll(() => {
  sqlite.close();
  rmSync(folder, { recursive: true, force: true });
});

const planOf = (query: { toSQL(): { sql: string; params: unknown[] } }) => {
  const { sql, params } = query.toSQL();
  // The plan does not depend on the values; placeholders and dates are bound as plain numbers.
  const values = params.map((param) => (typeof param === 'string' || typeof param === 'number' ? param : 1));
  const rows = sqlite.prepare(`explain query plan ${sql}`).all(...values) as { detail: string }[];
  return rows.map((row) => row.detail).join('\n');
};

describe('query plans', () => {
  it.each([
    ['a page of all animals', () => petQueries(db).page, /SEARCH pets USING INTEGER PRIMARY KEY \(rowid>\?\)/],
    ['a page filtered by status', () => petQueries(db).pageWithStatus, /SEARCH pets USING INDEX pets_status_id_idx \(status=\? AND id>\?\)/],
    ['an animal by id', () => petQueries(db).findById, /SEARCH pets USING INTEGER PRIMARY KEY \(rowid=\?\)/],
    ['a key by its public id', () => apiKeyQueries(db).findByPublicId, /SEARCH api_keys USING INDEX api_keys_public_id_unique \(public_id=\?\)/],
    ['revoking a key', () => apiKeyQueries(db).revoke(1, new Date()), /SEARCH api_keys USING INTEGER PRIMARY KEY \(rowid=\?\)/],
    ['an idempotency record', () => petQueries(db).findIdempotencyRecord, /SEARCH idempotency_keys USING INDEX sqlite_autoindex_idempotency_keys_1 \(key_lineage=\? AND key=\?\)/],
    ['expired idempotency records', () => petQueries(db).deleteExpiredIdempotencyRecords, /USING COVERING INDEX idempotency_keys_created_at_idx \(created_at<\?\)/],
  ])('reaches %s through an index, without a scan or a sort', (_, query, expected) => {
    const plan = planOf(query());
    expect(plan).toMatch(expected);
    expect(plan).not.toMatch(/SCAN|TEMP B-TREE/);
  });
});
