import { and, eq, sql } from 'drizzle-orm';
import type { NodePgQueryResultHKT } from 'drizzle-orm/node-postgres';
import type { PgDatabase } from 'drizzle-orm/pg-core';
import type { IdempotentOutcome, PetRecords } from '../database.js';
import { decideIdempotentCreate } from '../../pets/create/idempotency.js';
import type { NewPet, Pet } from '../../pets/pet.js';
import type { PostgresDrizzle } from './open-postgres-database.js';
import type * as schema from './schema.js';
import { idempotencyKeys, pets } from './schema.js';
import { petPageQueries } from '../pet-page-queries.js';

/**
 * Held for the length of each insert's transaction. Concurrent transactions would take ids in one
 * order and commit in another, and a client walking the pages could pass an id that is not yet
 * visible and never see it; one insert at a time makes ids visible in the order they are given.
 */
const INSERT_LOCK = 7_046_233_002;
type Transaction = Parameters<Parameters<PostgresDrizzle['transaction']>[0]>[0];
const lockInserts = (tx: Transaction) => tx.execute(sql`select pg_advisory_xact_lock(${INSERT_LOCK})`);

/** The pool or a transaction: both run the same queries. */
type Queryable = PgDatabase<NodePgQueryResultHKT, typeof schema>;

/** A key's record with the animal it created, read inside the transaction that may insert. */
const idempotencyRecordQuery = (db: Queryable) =>
  db
    .select({ fingerprint: idempotencyKeys.fingerprint, createdAt: idempotencyKeys.createdAt, pet: pets })
    .from(idempotencyKeys)
    .innerJoin(pets, eq(pets.id, idempotencyKeys.petId))
    .where(and(eq(idempotencyKeys.apiKeyId, sql.placeholder('apiKeyId')), eq(idempotencyKeys.key, sql.placeholder('key'))));

/** Every query the pet operations run; the query-plan test checks each uses an index. */
export const petQueries = (db: PostgresDrizzle) => ({
  ...petPageQueries(pets, () => db.select().from(pets)),
  findById: db.select().from(pets).where(eq(pets.id, sql.placeholder('id'))),
  findIdempotencyRecord: idempotencyRecordQuery(db),
  // A bounded batch, oldest first through the created_at index. SKIP LOCKED: rows a request is
  // rewriting (an expired key used again) are left for the next batch instead of waited for.
  deleteExpiredIdempotencyRecords: db.delete(idempotencyKeys).where(
    sql`(${idempotencyKeys.apiKeyId}, ${idempotencyKeys.key}) in (select ${idempotencyKeys.apiKeyId}, ${idempotencyKeys.key} from ${idempotencyKeys} where ${idempotencyKeys.createdAt} < ${sql.placeholder('before')} order by ${idempotencyKeys.createdAt} limit ${sql.placeholder('limit')} for update skip locked)`,
  ),
});

export const createPostgresPetRecords = (db: PostgresDrizzle): PetRecords => {
  const queries = petQueries(db);
  // Named statements: each connection plans them once.
  const page = queries.page.prepare('pets_page');
  const pageWithStatus = queries.pageWithStatus.prepare('pets_page_with_status');
  const findById = queries.findById.prepare('pets_find_by_id');
  const deleteExpired = queries.deleteExpiredIdempotencyRecords.prepare('idempotency_keys_delete_expired');

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
    // The insert lock also orders requests with the same idempotency key, on every instance: one
    // creates; the others wait for its commit, then read its record (each statement of a READ
    // COMMITTED transaction sees what was committed before it began) and replay.
    insertOnce: (pet, { apiKeyId, key, fingerprint, now }) =>
      db.transaction(async (tx): Promise<IdempotentOutcome> => {
        await lockInserts(tx);
        const [found] = await idempotencyRecordQuery(tx).execute({ apiKeyId, key });
        const decision = decideIdempotentCreate(found, { fingerprint, now });
        if (decision.outcome !== 'create') return decision;
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
    deleteExpiredIdempotencyRecords: async (before, limit) => (await deleteExpired.execute({ before, limit })).rowCount ?? 0,
    findById: async (id) => (await findById.execute({ id }))[0],
  };
};
