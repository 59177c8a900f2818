import { readMigrationFiles } from 'drizzle-orm/migrator';
import type pg from 'pg';

/** Any constant works; it only has to be the same in every instance of the service. */
const MIGRATION_LOCK = 7_046_233_001;

/** Where drizzle-kit's migrator keeps what it applied: the same table, so either can take over from the other. */
const APPLIED = 'drizzle.__drizzle_migrations';

/**
 * Brings the database to the latest of the committed migrations in `folder`, in one transaction
 * that first takes a transaction-scoped advisory lock: of several instances starting at once, one
 * migrates and the others, waiting on the lock, find the work done. Everything happens in one
 * transaction because a pooler in transaction mode (PgBouncer's, a managed PostgreSQL's pooled
 * address) may send each transaction to another server connection: a session lock taken in one
 * and released in another is never released, and drizzle's own migrator reads what was applied
 * outside its transaction. The bookkeeping is drizzle's (its table, hashes and timestamps), so a
 * database migrated before keeps its history. A migration PostgreSQL cannot run in a transaction
 * (`create index concurrently`) would need a direct address of its own
 * (docs/decisions/2026-11-28-postgres-as-fleets-run-it.md).
 */
export const migrate = async (client: pg.PoolClient, folder: string): Promise<void> => {
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  await client.query('begin');
  try {
    await client.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('create schema if not exists drizzle');
    await client.query(`create table if not exists ${APPLIED} (id serial primary key, hash text not null, created_at bigint)`);
    const { rows } = await client.query<{ created_at: string }>(`select created_at from ${APPLIED} order by created_at desc limit 1`);
    const last = rows[0] === undefined ? undefined : Number(rows[0].created_at);
    for (const migration of migrations) {
      if (last !== undefined && last >= migration.folderMillis) continue;
      for (const statement of migration.sql) if (statement.trim() !== '') await client.query(statement);
      await client.query(`insert into ${APPLIED} (hash, created_at) values ($1, $2)`, [migration.hash, migration.folderMillis]);
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
};
