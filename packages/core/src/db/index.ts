export type * from './database.js';
export { openDatabase, type DatabaseLocation } from './open-database.js';
export { openPostgresDatabase } from './postgres/open-postgres-database.js';
export { openSqliteDatabase } from './sqlite/open-sqlite-database.js';
