import type { drizzle } from 'drizzle-orm/better-sqlite3';
import type * as schema from './schema.js';

/** The store's tables as Drizzle reaches them over a better-sqlite3 connection. */
export type SqliteDrizzle = ReturnType<typeof drizzle<typeof schema>>;
