import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { ApiKeyRecord, ApiKeyRecords, ApiKeyRotation } from '../../storage/database.js';
import type { SqliteDrizzle } from './drizzle-database.js';
import { apiKeyEvents, apiKeys } from './schema.js';

/** The queries behind API keys; `sqlite-query-plans.test.ts` checks each uses an index. */
export const apiKeyQueries = (db: SqliteDrizzle) => ({
  findByPublicId: db.select().from(apiKeys).where(eq(apiKeys.publicId, sql.placeholder('publicId'))),
  revoke: (id: number, at: Date) =>
    db
      .update(apiKeys)
      .set({ revokedAt: at })
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))),
});

export const createSqliteApiKeyRecords = (db: SqliteDrizzle): ApiKeyRecords => {
  const queries = apiKeyQueries(db);
  // Looked up on every authenticated request, so prepared once.
  const findByPublicId = queries.findByPublicId.prepare();
  const rotate = db.$client.transaction(({ id, at, expiresAt, replacement }: ApiKeyRotation): ApiKeyRecord | undefined => {
    const retired = db
      .update(apiKeys)
      .set({ rotatedAt: at, expiresAt })
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt), isNull(apiKeys.rotatedAt)))
      .run();
    if (retired.changes === 0) return undefined;
    return db.insert(apiKeys).values(replacement).returning().all()[0];
  });

  return {
    insert: async (key) => db.insert(apiKeys).values(key).onConflictDoNothing().returning().all()[0],
    findByPublicId: async (publicId) => findByPublicId.get({ publicId }),
    list: async () => db.select().from(apiKeys).orderBy(asc(apiKeys.id)).all(),
    rotate: async (rotation) => rotate.immediate(rotation),
    revoke: async (id, at) => queries.revoke(id, at).run().changes > 0,
    recordUse: async (id, at) => {
      db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, id)).run();
    },
    recordFirstUse: async (id, at) =>
      db.update(apiKeys).set({ lastUsedAt: at }).where(and(eq(apiKeys.id, id), isNull(apiKeys.lastUsedAt))).run().changes > 0,
    recordEvent: async (event) => {
      db.insert(apiKeyEvents).values(event).run();
    },
    events: async (keyName) =>
      db.select().from(apiKeyEvents).where(keyName === undefined ? undefined : eq(apiKeyEvents.keyName, keyName)).orderBy(asc(apiKeyEvents.id)).all(),
  };
};
