import { and, eq, sql } from 'drizzle-orm';
import type { IdempotentCreate, IdempotentOutcome, PetRecords } from '../database.js';
import { decideIdempotentCreate } from '../../pets/create/idempotency.js';
import type { NewPet } from '../../pets/pet.js';
import type { SqliteDrizzle } from './open-sqlite-database.js';
import { rawPetPage } from './raw-pet-page.js';
import { idempotencyKeys, pets } from './schema.js';
import { petPageQueries } from '../pet-page-queries.js';

/** Every query the pet operations run; `sqlite-query-plans.test.ts` checks each uses an index. */
export const petQueries = (db: SqliteDrizzle) => ({
  ...petPageQueries(pets, () => db.select().from(pets)),
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
    .select({ fingerprint: idempotencyKeys.fingerprint, createdAt: idempotencyKeys.createdAt, pet: pets })
    .from(idempotencyKeys)
    .innerJoin(pets, eq(pets.id, idempotencyKeys.petId))
    .where(and(eq(idempotencyKeys.apiKeyId, sql.placeholder('apiKeyId')), eq(idempotencyKeys.key, sql.placeholder('key')))),
  // A bounded batch, oldest first through the created_at index: the write lock is held briefly.
  deleteExpiredIdempotencyRecords: db.delete(idempotencyKeys).where(
    sql`rowid in (select rowid from ${idempotencyKeys} where ${idempotencyKeys.createdAt} < ${sql.placeholder('before')} order by ${idempotencyKeys.createdAt} limit ${sql.placeholder('limit')})`,
  ),
});

/** Statements are prepared once: a request only binds values and steps through rows. */
export const createSqlitePetRecords = (db: SqliteDrizzle): PetRecords => {
  const queries = petQueries(db);
  const page = rawPetPage(db, queries.page);
  const pageWithStatus = rawPetPage(db, queries.pageWithStatus);
  const insert = queries.insert.prepare();
  const findById = queries.findById.prepare();
  const findIdempotencyRecord = queries.findIdempotencyRecord.prepare();
  const deleteExpired = queries.deleteExpiredIdempotencyRecords.prepare();

  // One immediate transaction: the write lock is taken first, so of two requests with the same
  // key (in this process or another on the same file) exactly one sees no record and creates.
  const insertOnce = db.$client.transaction(
    (pet: NewPet, { apiKeyId, key, fingerprint, now }: IdempotentCreate): IdempotentOutcome => {
      const decision = decideIdempotentCreate(findIdempotencyRecord.get({ apiKeyId, key }), { fingerprint, now });
      if (decision.outcome !== 'create') return decision;
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
      status === undefined ? page({ afterId, take }) : pageWithStatus({ afterId, status, take }),
    insert: async (pet) => {
      const [created] = insert.all(pet);
      if (!created) throw new Error('INSERT … RETURNING returned no row');
      return created;
    },
    insertOnce: async (pet, once) => insertOnce.immediate(pet, once),
    deleteExpiredIdempotencyRecords: async (before, limit) => deleteExpired.run({ before: before.getTime(), limit }).changes,
    findById: async (id) => findById.get({ id }),
  };
};
