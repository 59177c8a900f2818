import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { ApiKeyRecords } from '../../storage/database.js';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { PostgresDrizzle } from './drizzle-database.js';
import type * as schema from './schema.js';
import { apiKeyEvents, apiKeys } from './schema.js';

/** The queries behind API keys; the query-plan test checks each uses an index. */
export const apiKeyQueries = (db: NodePgDatabase<typeof schema>) => ({
  findByPublicId: db.select().from(apiKeys).where(eq(apiKeys.publicId, sql.placeholder('publicId'))),
});

export const createPostgresApiKeyRecords = (db: PostgresDrizzle): ApiKeyRecords => {
  // Looked up when an instance first sees a key and once its hold is over; named, so prepared once
  // on a connection that keeps it (statement-names.ts).
  const findByPublicId = apiKeyQueries(db).findByPublicId.prepare('api_keys_find_by_public_id');
  /** Writes `values` on the key while `column` is still null, in one statement; false when it was not. */
  const setWhileUnset = async (id: number, column: PgColumn, values: Partial<typeof apiKeys.$inferInsert>) =>
    (await db.update(apiKeys).set(values).where(and(eq(apiKeys.id, id), isNull(column))).returning({ id: apiKeys.id })).length > 0;

  return {
    insert: async (key) => (await db.insert(apiKeys).values(key).onConflictDoNothing().returning())[0],
    findByPublicId: async (publicId) => (await findByPublicId.execute({ publicId }))[0],
    list: () => db.select().from(apiKeys).orderBy(asc(apiKeys.id)),
    rotate: ({ id, at, expiresAt, replacement }) =>
      db.transaction(async (tx) => {
        const retired = await tx
          .update(apiKeys)
          .set({ rotatedAt: at, expiresAt })
          .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt), isNull(apiKeys.rotatedAt)))
          .returning({ id: apiKeys.id });
        if (retired.length === 0) return undefined;
        return (await tx.insert(apiKeys).values(replacement).returning())[0];
      }),
    revoke: (id, at) => setWhileUnset(id, apiKeys.revokedAt, { revokedAt: at }),
    recordUse: async (id, at) => {
      await db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, id));
    },
    recordFirstUse: (id, at) => setWhileUnset(id, apiKeys.lastUsedAt, { lastUsedAt: at }),
    recordEvent: async (event) => {
      await db.insert(apiKeyEvents).values(event);
    },
    events: (keyName) =>
      db.select().from(apiKeyEvents).where(keyName === undefined ? undefined : eq(apiKeyEvents.keyName, keyName)).orderBy(asc(apiKeyEvents.id)),
  };
};
