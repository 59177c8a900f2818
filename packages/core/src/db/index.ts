export type * from './database.js';
export { openSqliteDatabase } from './sqlite/open-sqlite-database.js';
