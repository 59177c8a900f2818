export type * from './database.js';
export { openDatabase, openPostgresDatabase, type DatabaseLocation } from './open-database.js';
export { openSqliteDatabase } from './sqlite/open-sqlite-database.js';
