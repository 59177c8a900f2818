import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import type { Database } from '../../storage/database.js';
import { type StatementObserver, observeSqliteStatements } from '../statement-observer.js';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../../storage/timeouts.js';
import { createSqliteApiKeyRecords } from './api-key-records.js';
import { createSqlitePetRecords } from './pet-records.js';
import * as schema from './schema.js';

const MIGRATIONS = fileURLToPath(new URL('../../../drizzle/sqlite', import.meta.url));

/**
 * The connection's page cache, in KiB: SQLite's own default. better-sqlite3 is built with 16 MiB,
 * which a growing file fills and the process keeps; the file's pages stay in the operating
 * system's cache, shared and outside the process, so a read the small cache misses costs a copy,
 * not a disk read (docs/decisions/2026-11-25-sqlite-page-cache-bounded.md).
 */
export const SQLITE_PAGE_CACHE_KIB = 2000;

const isInMemory = (file: string) => file === ':memory:' || file === '';

/** What a connection of the service runs with; pragmas belong to a connection, not to its file. */
export const configureConnection = (sqlite: BetterSqlite3.Database, timeouts: DatabaseTimeouts): void => {
  // WAL lets readers run while a write commits. synchronous=NORMAL in WAL mode syncs at checkpoints
  // rather than at every commit: a committed write survives the process being killed (it is in the
  // WAL file), and only an operating-system crash or power cut could lose the last commits.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`cache_size = -${SQLITE_PAGE_CACHE_KIB}`);
  // A write waits this long for another connection's lock (the keys CLI's, say), then fails as unavailable.
  sqlite.pragma(`busy_timeout = ${timeouts.statementMs}`);
};

/**
 * Opens (creating it and its folder if needed) the SQLite file and brings it to the latest
 * migration. The connection is configured before Drizzle sees it: a migration could not set its
 * pragmas.
 */
export const openSqliteDatabase = (
  file: string,
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
  onStatement?: StatementObserver,
): Database => {
  if (!isInMemory(file)) mkdirSync(dirname(file), { recursive: true });
  const sqlite = new BetterSqlite3(file);
  configureConnection(sqlite, timeouts);

  const db = drizzle({ client: sqlite, schema });
  migrate(db, { migrationsFolder: MIGRATIONS });
  // After the migrations: only the service's own statements are observed.
  if (onStatement) observeSqliteStatements(sqlite, onStatement);

  const ping = sqlite.prepare('select 1');
  return {
    pets: createSqlitePetRecords(db),
    apiKeys: createSqliteApiKeyRecords(db),
    ping: async () => {
      ping.get();
    },
    close: async () => {
      if (sqlite.open) sqlite.close();
    },
  };
};

