import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import type * as schema from './schema.js';

/** The store's tables as Drizzle reaches them over the pool of pg connections. */
export type PostgresDrizzle = NodePgDatabase<typeof schema> & { $client: pg.Pool };
