import { closeSync, mkdirSync, openSync, statSync } from 'node:fs';
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

/**
 * The store holds key hashes and the audit trail: its folder, its file and the `-wal` and `-shm`
 * files SQLite makes with the file's own mode are the service's user's alone, as backups are.
 */
const PRIVATE_FOLDER_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;
const STORE_COMPANIONS = ['', '-wal', '-shm'];

/**
 * The store's files that other local users may read or write (any group or other permission bit),
 * with their modes in octal: a store made before its files were made private, or loosened by hand.
 */
export const storeFilesOpenToOthers = (file: string): { path: string; mode: string }[] => {
  if (isInMemory(file)) return [];
  return STORE_COMPANIONS.map((suffix) => `${file}${suffix}`).flatMap((path) => {
    const mode = statSync(path, { throwIfNoEntry: false })?.mode;
    return mode !== undefined && (mode & 0o077) !== 0 ? [{ path, mode: (mode & 0o777).toString(8).padStart(4, '0') }] : [];
  });
};

/** Makes the store's folder and an empty file for it, the service's user's alone, when they do not exist yet. */
const createPrivately = (file: string) => {
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_FOLDER_MODE });
  // 'a' creates the file if it is missing and leaves an existing one as it is; SQLite gives its -wal and -shm this file's mode.
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
};

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
  if (!isInMemory(file)) createPrivately(file);
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

