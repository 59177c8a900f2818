import type { Database } from '../storage/database.js';
import type { StatementObserver } from './statement-observer.js';
import type { DatabaseTimeouts } from '../storage/timeouts.js';
import type { openPostgresDatabase as openPostgres } from './postgres/open-postgres-database.js';
import { openSqliteDatabase } from './sqlite/open-sqlite-database.js';

export interface DatabaseLocation {
  /** A `postgres://` URL: PostgreSQL. Absent: the SQLite file. */
  url?: string | undefined;
  sqliteFile: string;
  /** PostgreSQL connections per instance. */
  poolSize?: number | undefined;
  /** Told when a PostgreSQL connection breaks while idle. */
  onConnectionError?: ((error: Error) => void) | undefined;
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

/** The one place that picks the engine; nothing above it knows which one runs. */
export const openDatabase = async ({ url, sqliteFile, poolSize, onConnectionError, timeouts, onStatement }: DatabaseLocation): Promise<Database> =>
  url
    ? openPostgresDatabase(url, { ...(poolSize && { poolSize }), ...(onConnectionError && { onConnectionError }), ...(timeouts && { timeouts }), onStatement })
    : openSqliteDatabase(sqliteFile, timeouts, onStatement);
