import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { IdempotentCreate, IdempotentOutcome, PetRecords } from '../database.js';
import type { NewPet } from '../../schemas/pet.js';
import type { SqliteDrizzle } from './open-sqlite-database.js';
import { idempotencyKeys, pets } from './schema.js';

/** Every query the pet operations run; `sqlite-query-plans.test.ts` checks each uses an index. */
export const petQueries = (db: SqliteDrizzle) => {
  const afterId = sql.placeholder('afterId');
  const take = sql.placeholder('take');
  return {
    page: db.select().from(pets).where(gt(pets.id, afterId)).orderBy(asc(pets.id)).limit(take),
    pageWithStatus: db
      .select()
      .from(pets)
      .where(and(eq(pets.status, sql.placeholder('status')), gt(pets.id, afterId)))
      .orderBy(asc(pets.id))
      .limit(take),
    insert: db
      .insert(pets)
      .values({
        name: sql.placeholder('name'),
        categoryId: sql.placeholder('categoryId'),
        status: sql.placeholder('status'),
      })
      .returning(),
    findById: db.select().from(pets).where(eq(pets.id, sql.placeholder('id'))),
    findIdempotencyRecord: db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.apiKeyId, sql.placeholder('apiKeyId')), eq(idempotencyKeys.key, sql.placeholder('key')))),
    // At most a hundred at a time, through the created_at index, so no request pays for a backlog.
    deleteExpiredIdempotencyRecords: db.delete(idempotencyKeys).where(
      sql`rowid in (select rowid from ${idempotencyKeys} where ${idempotencyKeys.createdAt} < ${sql.placeholder('notBefore')} limit 100)`,
    ),
  };
};

/** Statements are prepared once: a request only binds values and steps through rows. */
export const createSqlitePetRecords = (db: SqliteDrizzle): PetRecords => {
  const queries = petQueries(db);
  const page = queries.page.prepare();
  const pageWithStatus = queries.pageWithStatus.prepare();
  const insert = queries.insert.prepare();
  const findById = queries.findById.prepare();
  const findIdempotencyRecord = queries.findIdempotencyRecord.prepare();
  const deleteExpired = queries.deleteExpiredIdempotencyRecords.prepare();

  // One immediate transaction: the write lock is taken first, so of two requests with the same
  // key (in this process or another on the same file) exactly one sees no record and creates.
  const insertOnce = db.$client.transaction(
    (pet: NewPet, { apiKeyId, key, fingerprint, now, notBefore }: IdempotentCreate): IdempotentOutcome => {
      deleteExpired.run({ notBefore: notBefore.getTime() });
      const found = findIdempotencyRecord.get({ apiKeyId, key });
      // An expired record is ignored even while it waits for its turn to be deleted.
      const record = found && found.createdAt >= notBefore ? found : undefined;
      if (record) {
        if (record.fingerprint !== fingerprint) return { outcome: 'mismatch' };
        const created = findById.get({ id: record.petId });
        if (created) return { outcome: 'replayed', pet: created };
      }
      const [inserted] = insert.all(pet);
      if (!inserted) throw new Error('INSERT … RETURNING returned no row');
      db.insert(idempotencyKeys)
        .values({ apiKeyId, key, fingerprint, petId: inserted.id, createdAt: now })
        .onConflictDoUpdate({
          target: [idempotencyKeys.apiKeyId, idempotencyKeys.key],
          set: { fingerprint, petId: inserted.id, createdAt: now },
        })
        .run();
      return { outcome: 'created', pet: inserted };
    },
  );

  return {
    page: async ({ afterId, status, take }) =>
      status === undefined ? page.all({ afterId, take }) : pageWithStatus.all({ afterId, status, take }),
    insert: async (pet) => {
      const [created] = insert.all(pet);
      if (!created) throw new Error('INSERT … RETURNING returned no row');
      return created;
    },
    insertOnce: async (pet, once) => insertOnce.immediate(pet, once),
    findById: async (id) => findById.get({ id }),
  };
};
