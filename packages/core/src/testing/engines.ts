import type { Database } from '../storage/database.js';
import { openPostgresDatabase } from '../db/postgres/open-postgres-database.js';
import { openSqliteDatabase } from '../db/sqlite/open-sqlite-database.js';
import { createScratchPostgresDatabase } from './scratch-postgres.js';
import type { ExternalNeed } from './sqlite-only.js';

export interface OpenedDatabase {
  db: Database;
  /** Closes the database and deletes whatever it created. */
  dispose(): Promise<void>;
}

export interface Engine {
  name: string;
  /** The server it runs on, unless embedded: a SQLite-only run skips its tests. */
  needs?: ExternalNeed;
  /** A fresh, migrated, empty database. */
  open(): Promise<OpenedDatabase>;
}

/** Every engine the service runs on: the storage tests run once per engine. */
export const ENGINES: Engine[] = [
  {
    name: 'SQLite',
    open: async () => {
      const db = openSqliteDatabase(':memory:');
      return { db, dispose: () => db.close() };
    },
  },
  {
    name: 'PostgreSQL',
    needs: 'PostgreSQL',
    open: async () => {
      const scratch = await createScratchPostgresDatabase();
      const db = await openPostgresDatabase(scratch.url, { connections: { pool: 4 } });
      return {
        db,
        dispose: async () => {
          await db.close();
          await scratch.drop();
        },
      };
    },
  },
];
