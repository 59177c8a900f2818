import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { ApiKeyRecords } from '../database.js';
import type { SqliteDrizzle } from './open-sqlite-database.js';
import { apiKeys } from './schema.js';

export const createSqliteApiKeyRecords = (db: SqliteDrizzle): ApiKeyRecords => {
  // Looked up on every authenticated request, so prepared once.
  const findByPublicId = db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.publicId, sql.placeholder('publicId')))
    .prepare();

  return {
    insert: async (key) => {
      const [created] = db.insert(apiKeys).values(key).returning().all();
      if (!created) throw new Error('INSERT … RETURNING returned no row');
      return created;
    },
    findByPublicId: async (publicId) => findByPublicId.get({ publicId }),
    list: async () => db.select().from(apiKeys).orderBy(asc(apiKeys.id)).all(),
    revoke: async (id, at) => {
      const revoked = db
        .update(apiKeys)
        .set({ revokedAt: at })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .run();
      return revoked.changes > 0;
    },
  };
};
