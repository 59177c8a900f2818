import type { Database } from './database.js';
import { startIdempotencyPruning } from './idempotency-pruning.js';
import { openPostgresDatabase } from './postgres/open-postgres-database.js';
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
}

/**
 * The one place that picks the engine; nothing above it knows which one runs. The database it
 * returns prunes its expired idempotency records in the background until it is closed.
 */
export const openDatabase = async ({ url, sqliteFile, poolSize, onConnectionError, pruneEveryMs }: DatabaseLocation): Promise<Database> => {
  const db = url
    ? await openPostgresDatabase(url, { ...(poolSize && { poolSize }), ...(onConnectionError && { onConnectionError }) })
    : openSqliteDatabase(sqliteFile);
  const pruning = startIdempotencyPruning(db.pets, pruneEveryMs);
  return {
    ...db,
    close: async () => {
      await pruning.stop();
      await db.close();
    },
  };
};
