import type { Database } from './database.js';
import type { StatementObserver } from './statement-observer.js';
import type { DatabaseTimeouts } from './timeouts.js';
import type { openPostgresDatabase as openPostgres } from './postgres/open-postgres-database.js';
import { startIdempotencyPruning } from '../pets/create/idempotency-pruning.js';
import { openSqliteDatabase } from './sqlite/open-sqlite-database.js';

export interface DatabaseLocation {
  /** A `postgres://` URL: PostgreSQL. Absent: the SQLite file. */
  url?: string | undefined;
  sqliteFile: string;
  /** PostgreSQL connections per instance. */
  poolSize?: number | undefined;
  /** Told when a PostgreSQL connection breaks while idle. */
  onConnectionError?: ((error: Error) => void) | undefined;
  /** How often expired idempotency records are pruned; PRUNE_EVERY_MS unless a test needs sooner. */
  pruneEveryMs?: number | undefined;
  /** The bounds on waiting for the database; each engine's defaults otherwise. */
  timeouts?: DatabaseTimeouts | undefined;
  /** Told of every SQL statement the service runs (tracing); unset: nothing is wrapped. */
  onStatement?: StatementObserver | undefined;
}

/**
 * PostgreSQL's driver and Drizzle dialect are loaded only when a PostgreSQL database is opened: on
 * the SQLite default their memory would be held for nothing.
 */
export const openPostgresDatabase = async (...args: Parameters<typeof openPostgres>): Promise<Database> =>
  (await import('./postgres/open-postgres-database.js')).openPostgresDatabase(...args);

/**
 * The one place that picks the engine; nothing above it knows which one runs. The database it
 * returns prunes its expired idempotency records in the background until it is closed.
 */
export const openDatabase = async ({ url, sqliteFile, poolSize, onConnectionError, pruneEveryMs, timeouts, onStatement }: DatabaseLocation): Promise<Database> => {
  const db = url
    ? await openPostgresDatabase(url, { ...(poolSize && { poolSize }), ...(onConnectionError && { onConnectionError }), ...(timeouts && { timeouts }), onStatement })
    : openSqliteDatabase(sqliteFile, timeouts, onStatement);
  const pruning = startIdempotencyPruning(db.pets, pruneEveryMs);
  return {
    ...db,
    close: async () => {
      await pruning.stop();
      await db.close();
    },
  };
};
