import { type Column, type DriverValueEncoder, Param, Placeholder, and, eq, getTableColumns, sql } from 'drizzle-orm';
import type { IdempotentCreate, IdempotentOutcome, PetRecords } from '../../storage/database.js';
import { type FoundIdempotencyRecord, decideIdempotentCreate } from '../../pets/create/idempotency.js';
import type { NewPetRecord as NewPet, PetRecord as Pet } from '../../storage/database.js';
import type { SqliteDrizzle } from './drizzle-database.js';
import { idempotencyKeys, pets } from './schema.js';
import { afterReadyCallbacks, groupCommit } from '../group-commit.js';
import { petPageQueries } from '../pet-page-queries.js';

/** The order the columns of `select() from pets` come in, and so each raw row's. */
const PET_FIELDS = ['id', 'name', 'categoryId', 'status'] as const;
if (Object.keys(getTableColumns(pets)).join() !== PET_FIELDS.join()) {
  throw new Error('the pets table changed: update PET_FIELDS to its columns');
}

type PetRow = [Pet['id'], Pet['name'], Pet['categoryId'], Pet['status']];

const petOf = ([id, name, categoryId, status]: PetRow): Pet => ({ id, name, categoryId, status });

/** The values a call binds, by placeholder name. */
type Values = Record<string, unknown>;

/**
 * How a statement's parameter gets its value from the named values a call passes: a placeholder by
 * its name, and one Drizzle wrapped with its column's encoder (an insert's values) through it.
 */
const binderOf = (param: unknown): ((values: Values) => unknown) => {
  if (param instanceof Placeholder) return (values) => values[param.name as string];
  if (param instanceof Param) {
    const placeholder: unknown = param.value;
    const encoder = param.encoder as DriverValueEncoder<unknown, unknown>;
    if (placeholder instanceof Placeholder) return (values) => encoder.mapToDriverValue(values[placeholder.name as string]);
  }
  throw new Error('a raw statement binds only placeholders');
};

/**
 * A statement run on better-sqlite3 itself: the SQL is still the one Drizzle builds from the
 * schema, its values bound by placeholder name, and what it reads comes back as arrays, a column
 * an element. Drizzle's generic row mapping checks every column of every row, and its placeholder
 * filling tests every parameter's class, a cost every request on the path would pay
 * (docs/decisions/2026-11-25-sqlite-creates-without-drizzles-placeholder-filling.md).
 */
const rawStatement = <Row extends unknown[]>(db: SqliteDrizzle, query: { toSQL(): { sql: string; params: unknown[] } }) => {
  const { sql, params } = query.toSQL();
  const binders = params.map(binderOf);
  const prepared = db.$client.prepare<unknown[], Row>(sql);
  const statement = prepared.reader ? prepared.raw(true) : prepared;
  const valuesOf = (values: Values) => binders.map((bind) => bind(values));
  const all = (values: Values): Row[] => statement.all(...valuesOf(values));
  return {
    all,
    // A statement that writes runs to its end even when one row is wanted: better-sqlite3's get()
    // resets it after the first row, and an autocommit write commits at that reset without
    // reporting a failure there (a read-only file would answer as if the animal were stored).
    get: prepared.readonly
      ? (values: Values): Row | undefined => statement.get(...valuesOf(values))
      : (values: Values): Row | undefined => all(values)[0],
    run: (values: Values): void => {
      statement.run(...valuesOf(values));
    },
  };
};

/**
 * A statement about animals (a page, one by id, an insert returning the animal), each row made
 * into a Pet here: no column of a pet needs Drizzle's decoding (no dates, no JSON).
 */
const rawPetRows = (db: SqliteDrizzle, query: { toSQL(): { sql: string; params: unknown[] } }) => {
  const statement = rawStatement<PetRow>(db, query);
  return {
    all: (values: Values): Pet[] => statement.all(values).map(petOf),
    one: (values: Values): Pet | undefined => {
      const row = statement.get(values);
      return row && petOf(row);
    },
  };
};

/** A key's record as `findIdempotencyRecord` reads it: its own columns, then its animal's. */
type IdempotencyRecordRow = [string, number, ...PetRow];

/** The value an upsert's conflicting row would have written to `column`. */
const excluded = (column: Column) => sql`excluded.${sql.identifier(column.name)}`;

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
    .where(and(eq(idempotencyKeys.keyLineage, sql.placeholder('keyLineage')), eq(idempotencyKeys.key, sql.placeholder('key')))),
  // A key's record is written with the animal it created; a key whose record expired is used again.
  writeIdempotencyRecord: db
    .insert(idempotencyKeys)
    .values({
      keyLineage: sql.placeholder('keyLineage'),
      key: sql.placeholder('key'),
      fingerprint: sql.placeholder('fingerprint'),
      petId: sql.placeholder('petId'),
      createdAt: sql.placeholder('createdAt'),
    })
    .onConflictDoUpdate({
      target: [idempotencyKeys.keyLineage, idempotencyKeys.key],
      set: { fingerprint: excluded(idempotencyKeys.fingerprint), petId: excluded(idempotencyKeys.petId), createdAt: excluded(idempotencyKeys.createdAt) },
    }),
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
  const idempotencyRecord = rawStatement<IdempotencyRecordRow>(db, queries.findIdempotencyRecord);
  const findIdempotencyRecord = (values: Values): FoundIdempotencyRecord | undefined => {
    const row = idempotencyRecord.get(values);
    if (!row) return undefined;
    const [fingerprint, createdAt, ...pet] = row;
    // `created_at` is a `timestamp_ms` column: milliseconds since the epoch.
    return { fingerprint, createdAt: new Date(createdAt), pet: petOf(pet) };
  };
  const writeIdempotencyRecord = rawStatement(db, queries.writeIdempotencyRecord);
  const deleteExpired = queries.deleteExpiredIdempotencyRecords.prepare();

  const insertedPet = (pet: NewPet): Pet => {
    const inserted = insert.one(pet);
    if (!inserted) throw new Error('INSERT … RETURNING returned no row');
    return inserted;
  };

  // Creates read together go in one transaction: one commit, not one each. Ids are taken in the
  // group's order, and the group commits whole or not at all before any of its creates is answered.
  const insertGroup = db.$client.transaction((group: NewPet[]): Pet[] => group.map(insertedPet));
  const insertTogether = groupCommit(async (group: NewPet[]) => insertGroup.immediate(group), { gather: afterReadyCallbacks });

  // One immediate transaction: the write lock is taken first, so of two requests with the same
  // key (in this process or another on the same file) exactly one sees no record and creates.
  const insertOnce = db.$client.transaction(
    (pet: NewPet, { keyLineage, key, fingerprint, now }: IdempotentCreate): IdempotentOutcome => {
      const decision = decideIdempotentCreate(findIdempotencyRecord({ keyLineage, key }), { fingerprint, now });
      if (decision.outcome !== 'create') return decision;
      const inserted = insertedPet(pet);
      writeIdempotencyRecord.run({ keyLineage, key, fingerprint, petId: inserted.id, createdAt: now });
      return { outcome: 'created', pet: inserted };
    },
  );

  return {
    page: async ({ afterId, status, take }) =>
      status === undefined ? page.all({ afterId, take }) : pageWithStatus.all({ afterId, status, take }),
    insert: insertTogether,
    insertOnce: async (pet, once, signal) => {
      signal?.throwIfAborted();
      return insertOnce.immediate(pet, once);
    },
    deleteExpiredIdempotencyRecords: async (before, limit) => deleteExpired.run({ before: before.getTime(), limit }).changes,
    findById: async (id) => findById.one({ id }),
  };
};
