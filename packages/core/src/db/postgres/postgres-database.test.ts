import { readFileSync } from 'node:fs';
import { Placeholder } from 'drizzle-orm';
import { type NodePgDatabase, drizzle } from 'drizzle-orm/node-postgres';
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { describe, expect } from 'vitest';
import { it } from '../../testing/fixtures.js';
import { startPgBouncer } from '../../testing/pgbouncer.js';
import { isSqliteOnlyRun } from '../../testing/sqlite-only.js';
import { TEST_POSTGRES_URL, createScratchPostgresDatabase } from '../../testing/scratch-postgres.js';
import { apiKeyQueries } from './api-key-records.js';
import { openPostgresDatabase } from './open-postgres-database.js';
import { petQueries } from './pet-records.js';
import * as schema from './schema.js';

/** Each committed migration, as drizzle-kit's journal lists them. */
const journal = JSON.parse(readFileSync(new URL('../../../drizzle/postgres/meta/_journal.json', import.meta.url), 'utf8')) as { entries: unknown[] };

describe('PostgreSQL migrations', () => {
  it('run exactly once when several instances start at the same moment', async ({ scratchPostgres: { url } }) => {
    const instances = await Promise.all(Array.from({ length: 5 }, () => openPostgresDatabase(url, { connections: { pool: 2 } })));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const applied = await client.query('select count(*)::int as count from drizzle.__drizzle_migrations');
    await client.end();
    // Each committed migration once, however many instances raced to apply it.
    expect(applied.rows[0]).toEqual({ count: journal.entries.length });
    for (const instance of instances) await instance.close();
  });

  // Its scratch databases and PgBouncer are its own, outside the fixtures that skip a test a SQLite-only run goes without.
  it.skipIf(isSqliteOnlyRun())('run exactly once through PgBouncer in transaction mode, where each transaction may find another server connection', async () => {
    // Two server connections for eight instances: their statements take turns on the same two. A
    // lock held by a session would be taken on one and given back on another, or by another
    // instance's statement; it shows in some starts, not all, hence several.
    const pooler = await startPgBouncer({ server: TEST_POSTGRES_URL, poolMode: 'transaction', settings: { default_pool_size: '2' } });
    try {
      for (let round = 0; round < 4; round++) {
        const scratch = await createScratchPostgresDatabase();
        const instances = await Promise.all(
          Array.from({ length: 8 }, () =>
            openPostgresDatabase(pooler.through(scratch.url), { connections: { pool: 1, reads: 0 }, timeouts: { connectMs: 10_000, statementMs: 10_000 } }),
          ),
        );
        const client = new pg.Client({ connectionString: scratch.url });
        await client.connect();
        const applied = await client.query('select count(*)::int as count from drizzle.__drizzle_migrations');
        // No lock outlives the start on a server connection the pooler keeps.
        const locks = await client.query("select count(*)::int as count from pg_locks where locktype = 'advisory'");
        await client.end();
        for (const instance of instances) await instance.close();
        await scratch.drop();
        expect(applied.rows[0]).toEqual({ count: journal.entries.length });
        expect(locks.rows[0]).toEqual({ count: 0 });
      }
    } finally {
      await pooler.stop();
    }
  });
});

describe('PostgreSQL tables', () => {
  it('never reuse the id of the newest animal, even once its row is gone', async ({ scratchPostgres: { url } }) => {
    const db = await openPostgresDatabase(url);
    const rex = await db.pets.insert({ name: 'Rex', categoryId: 1, status: 'sold' });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    // No operation deletes animals; this removes the row behind the service's back.
    await client.query('delete from pets where id = $1', [rex.id]);
    await expect(client.query("insert into pets (name, category_id, status) values ('Tom', 1, 'lost')")).rejects.toThrow(/pets_status_known/);
    await client.end();
    const next = await db.pets.insert({ name: 'Tom', categoryId: 1, status: 'sold' });
    expect(next.id).toBeGreaterThan(rex.id);
    await db.close();
  });
});

type Queries = NodePgDatabase<typeof schema>;

describe('PostgreSQL query plans', () => {
  it.for([
    ['a page of all animals', (db: Queries) => petQueries(db).page, /Index Scan using pets_pkey/],
    ['a page filtered by status', (db: Queries) => petQueries(db).pageWithStatus, /Index Scan using pets_status_id_idx/],
    ['an animal by id', (db: Queries) => petQueries(db).findById, /Index Scan using pets_pkey/],
    ['a key by its public id', (db: Queries) => apiKeyQueries(db).findByPublicId, /Index Scan using api_keys_public_id_unique/],
    ['the idempotency records of a batch of creates', (db: Queries) => petQueries(db).findRecords, /Index Scan using idempotency_keys_key_lineage_key_pk/],
    ['expired idempotency records', (db: Queries) => petQueries(db).deleteExpiredIdempotencyRecords, /Index (Only )?Scan using idempotency_keys_created_at_idx/],
  ] as const)('reach %s through an index, without a sort', async ([, query, expected], { scratchPostgres: { url } }) => {
    const opened = await openPostgresDatabase(url);
    await opened.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    // Tiny tables make a sequential scan cheapest; the question is whether an index can serve.
    await client.query('set enable_seqscan = off');
    const statement = query(drizzle({ client, schema }));
    const { sql, params } = 'toSQL' in statement ? statement.toSQL() : new PgDialect().sqlToQuery(statement);
    // The plan does not depend on the values; a placeholder is bound as 1, or a date where it is one.
    const values = params.map((param) =>
      typeof param === 'string' || typeof param === 'number' ? param : param instanceof Placeholder && param.name === 'before' ? new Date() : param instanceof Placeholder && param.name === 'keys' ? ['k'] : param instanceof Placeholder && param.name === 'keyLineages' ? ['0123456789ab'] : 1,
    );
    const plan = (await client.query(`explain ${sql}`, values)).rows.map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']).join('\n');
    await client.end();
    expect(plan).toMatch(expected);
    expect(plan).not.toMatch(/Seq Scan|Sort/);
  });
});
