export { openDatabase, openPostgresDatabase, type DatabaseLocation } from './open-database.js';
export type { BudgetAtStart, PostgresOptions } from './postgres/open-postgres-database.js';
export { SQLITE_PAGE_CACHE_KIB, openSqliteDatabase, storeFilesOpenToOthers } from './sqlite/open-sqlite-database.js';
export { BACKUP_PAGES_PER_STEP, BackupError, type BackupRefusal, type SqliteBackup, type SqliteBackupOptions, backupSqliteFile } from './sqlite/backup.js';
export type { StatementObserver } from './statement-observer.js';
