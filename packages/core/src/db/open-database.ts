import type { Database } from '../storage/database.js';
import type { StatementObserver } from './statement-observer.js';
import type { DatabaseTimeouts } from '../storage/timeouts.js';
import type { PostgresOptions, openPostgresDatabase as openPostgres } from './postgres/open-postgres-database.js';
import { openSqliteDatabase } from './sqlite/open-sqlite-database.js';

export interface DatabaseLocation extends Omit<PostgresOptions, 'timeouts' | 'onStatement'> {
  /** A `postgres://` URL: PostgreSQL, with the rest of PostgresOptions. Absent: the SQLite file. */
  url?: string | undefined;
  sqliteFile: string;
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
export const openDatabase = async ({ url, sqliteFile, timeouts, onStatement, ...postgres }: DatabaseLocation): Promise<Database> =>
  url ? openPostgresDatabase(url, { ...postgres, ...(timeouts && { timeouts }), onStatement }) : openSqliteDatabase(sqliteFile, timeouts, onStatement);
