import { type DriverValueEncoder, Param, Placeholder, and, eq, getTableColumns, sql } from 'drizzle-orm';
import type { IdempotentCreate, IdempotentOutcome, PetRecords } from '../database.js';
import { decideIdempotentCreate } from '../../pets/create/idempotency.js';
import type { NewPet, Pet } from '../../pets/pet.js';
import type { SqliteDrizzle } from './open-sqlite-database.js';
import { idempotencyKeys, pets } from './schema.js';
import { petPageQueries } from '../pet-page-queries.js';

/** The order the columns of `select() from pets` come in, and so each raw row's. */
const PET_FIELDS = ['id', 'name', 'categoryId', 'status'] as const;
if (Object.keys(getTableColumns(pets)).join() !== PET_FIELDS.join()) {
  throw new Error('the pets table changed: update PET_FIELDS to its columns');
}

type PetRow = [Pet['id'], Pet['name'], Pet['categoryId'], Pet['status']];

const petOf = ([id, name, categoryId, status]: PetRow): Pet => ({ id, name, categoryId, status });

/**
 * How a statement's parameter gets its value from the named values a call passes: a placeholder by
 * its name, and one Drizzle wrapped with its column's encoder (an insert's values) through it.
 */
const binderOf = (param: unknown): ((values: Record<string, unknown>) => unknown) => {
  if (param instanceof Placeholder) return (values) => values[param.name as string];
  if (param instanceof Param) {
    const placeholder: unknown = param.value;
    const encoder = param.encoder as DriverValueEncoder<unknown, unknown>;
    if (placeholder instanceof Placeholder) return (values) => encoder.mapToDriverValue(values[placeholder.name as string]);
  }
  throw new Error('a raw statement binds only placeholders');
};

/**
 * A statement about animals run on better-sqlite3 itself (a page, one by id, an insert returning
 * the animal): the SQL is still the one Drizzle builds from the schema, but each row comes back as
 * an array made into a Pet here. Drizzle's generic row mapping checks every column of every row,
 * and its placeholder filling tests every parameter's class, a cost every request on the path
 * would pay (docs/decisions), and no column of a pet needs its decoding (no dates, no JSON).
 */
export const rawPetRows = (db: SqliteDrizzle, query: { toSQL(): { sql: string; params: unknown[] } }) => {
  const { sql, params } = query.toSQL();
  const binders = params.map(binderOf);
  const statement = db.$client.prepare<unknown[], PetRow>(sql).raw(true);
  const valuesOf = (values: Record<string, unknown>) => binders.map((bind) => bind(values));
  return {
    all: (values: Record<string, unknown>): Pet[] => statement.all(...valuesOf(values)).map(petOf),
    one: (values: Record<string, unknown>): Pet | undefined => {
      const row = statement.get(...valuesOf(values));
      return row && petOf(row);
    },
  };
};

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
  const page = rawPetRows(db, queries.page);
  const pageWithStatus = rawPetRows(db, queries.pageWithStatus);
  const insert = rawPetRows(db, queries.insert);
  const findById = rawPetRows(db, queries.findById);
  const findIdempotencyRecord = queries.findIdempotencyRecord.prepare();
  const deleteExpired = queries.deleteExpiredIdempotencyRecords.prepare();

  // `all`, never `one`: the statement must run to its end, where autocommit commits and a write
  // that cannot be made fails; `one` resets it after the returned row and loses that error.
  const insertedPet = (pet: NewPet): Pet => {
    const [inserted] = insert.all(pet);
    if (!inserted) throw new Error('INSERT … RETURNING returned no row');
    return inserted;
  };

  // One immediate transaction: the write lock is taken first, so of two requests with the same
  // key (in this process or another on the same file) exactly one sees no record and creates.
  const insertOnce = db.$client.transaction(
    (pet: NewPet, { apiKeyId, key, fingerprint, now }: IdempotentCreate): IdempotentOutcome => {
      const decision = decideIdempotentCreate(findIdempotencyRecord.get({ apiKeyId, key }), { fingerprint, now });
      if (decision.outcome !== 'create') return decision;
      const inserted = insertedPet(pet);
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
    insert: async (pet) => insertedPet(pet),
    insertOnce: async (pet, once) => insertOnce.immediate(pet, once),
    deleteExpiredIdempotencyRecords: async (before, limit) => deleteExpired.run({ before: before.getTime(), limit }).changes,
    findById: async (id) => findById.one({ id }),
  };
};
