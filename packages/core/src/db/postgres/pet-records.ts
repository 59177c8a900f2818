import { and, asc, eq, gt, lt, sql } from 'drizzle-orm';
import type { IdempotentOutcome, PetRecords } from '../database.js';
import type { NewPet, Pet } from '../../schemas/pet.js';
import type { PostgresDrizzle } from './open-postgres-database.js';
import { idempotencyKeys, pets } from './schema.js';

/**
 * Held for the length of each insert's transaction. Concurrent transactions would take ids in one
 * order and commit in another, and a client walking the pages could pass an id that is not yet
 * visible and never see it; one insert at a time makes ids visible in the order they are given.
 */
const INSERT_LOCK = 7_046_233_002;
type Transaction = Parameters<Parameters<PostgresDrizzle['transaction']>[0]>[0];
const lockInserts = (tx: Transaction) => tx.execute(sql`select pg_advisory_xact_lock(${INSERT_LOCK})`);

/** Every query the pet operations run; the query-plan test checks each uses an index. */
export const petQueries = (db: PostgresDrizzle) => {
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
    findById: db.select().from(pets).where(eq(pets.id, sql.placeholder('id'))),
  };
};

export const createPostgresPetRecords = (db: PostgresDrizzle): PetRecords => {
  const queries = petQueries(db);
  // Named statements: each connection plans them once.
  const page = queries.page.prepare('pets_page');
  const pageWithStatus = queries.pageWithStatus.prepare('pets_page_with_status');
  const findById = queries.findById.prepare('pets_find_by_id');

  const insertIn = async (tx: Transaction, pet: NewPet): Promise<Pet> => {
    const [created] = await tx.insert(pets).values(pet).returning();
    if (!created) throw new Error('INSERT … RETURNING returned no row');
    return created;
  };

  return {
    page: async ({ afterId, status, take }) =>
      status === undefined ? page.execute({ afterId, take }) : pageWithStatus.execute({ afterId, status, take }),
    insert: (pet) =>
      db.transaction(async (tx) => {
        await lockInserts(tx);
        return insertIn(tx, pet);
      }),
    // The insert lock also orders requests with the same idempotency key: one creates, the
    // others find its record.
    insertOnce: (pet, { apiKeyId, key, fingerprint, now, notBefore }) =>
      db.transaction(async (tx): Promise<IdempotentOutcome> => {
        await lockInserts(tx);
        await tx.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, notBefore));
        const [record] = await tx
          .select()
          .from(idempotencyKeys)
          .where(and(eq(idempotencyKeys.apiKeyId, apiKeyId), eq(idempotencyKeys.key, key)));
        if (record) {
          if (record.fingerprint !== fingerprint) return { outcome: 'mismatch' };
          const [created] = await tx.select().from(pets).where(eq(pets.id, record.petId));
          if (created) return { outcome: 'replayed', pet: created };
        }
        const created = await insertIn(tx, pet);
        await tx
          .insert(idempotencyKeys)
          .values({ apiKeyId, key, fingerprint, petId: created.id, createdAt: now })
          .onConflictDoUpdate({
            target: [idempotencyKeys.apiKeyId, idempotencyKeys.key],
            set: { fingerprint, petId: created.id, createdAt: now },
          });
        return { outcome: 'created', pet: created };
      }),
    findById: async (id) => (await findById.execute({ id }))[0],
  };
};
