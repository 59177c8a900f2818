import type { Database } from './database.js';
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
}

/** The one place that picks the engine; nothing above it knows which one runs. */
export const openDatabase = ({ url, sqliteFile, poolSize, onConnectionError }: DatabaseLocation): Promise<Database> =>
  url
    ? openPostgresDatabase(url, { ...(poolSize && { poolSize }), ...(onConnectionError && { onConnectionError }) })
    : Promise.resolve(openSqliteDatabase(sqliteFile));
