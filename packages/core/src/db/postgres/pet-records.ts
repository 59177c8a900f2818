import { type Column, Placeholder, type SQL, eq, sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type { IdempotentCreate, IdempotentOutcome, PetRecords } from '../../storage/database.js';
import { type FoundIdempotencyRecord, decideIdempotentCreate } from '../../pets/create/idempotency.js';
import type { NewPetRecord as NewPet, PetRecord as Pet } from '../../storage/database.js';
import { petPageQueries } from '../pet-page-queries.js';
import { groupCommit } from '../group-commit.js';
import type { PostgresDrizzle } from './drizzle-database.js';
import type * as schema from './schema.js';
import { idempotencyKeys, pets } from './schema.js';

const dialect = new PgDialect();

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/**
 * A statement on the request path, from SQL Drizzle writes from the schema: its values bound by
 * placeholder name, each row made once, by pg, with the names the statement gives its columns (ids
 * as numbers: the pool's `INT8_AS_NUMBER`). Drizzle's own prepared queries wrap every run in
 * tracing spans and map each row again through its generic mapper
 * (docs/decisions/2026-11-23-postgres-read-path.md).
 * Its `name` prepares it once per connection where the connection keeps it (statement-names.ts);
 * elsewhere it is sent unnamed, parsed and planned on each run, and nothing of it outlives its
 * transaction.
 */
const statement = <Row extends object = Record<string, unknown>>(name: string, query: SQL | { getSQL(): SQL }) => {
  const { sql: text, params } = dialect.sqlToQuery('getSQL' in query ? query.getSQL() : query);
  const valueOf = params.map((param) =>
    param instanceof Placeholder ? (values: Record<string, unknown>) => values[param.name as string] : () => param,
  );
  return async (on: Queryable, values: Record<string, unknown> = {}): Promise<Row[]> =>
    (
      await on.query<Row>({
        name,
        text,
        values: valueOf.map((value) => value(values)),
      })
    ).rows;
};

/**
 * Held by each batch of creates until it commits. Transactions writing at once would take ids in
 * one order and commit in another, and a client walking the pages could pass an id that is not
 * yet visible and never see it: one batch at a time, on every instance, makes ids visible in the
 * order they are given. Each instance writes the creates that arrived while its last batch was
 * committing as one batch (group commit), so the lock and a flush of the log serve many creates.
 */
const INSERT_LOCK = 7_046_233_002;

const name = (of: Column) => sql.identifier(of.name);

/** A pet's columns under its fields' names: pg makes each row a Pet as it reads it. */
const petFields = { id: pets.id, name: pets.name, categoryId: sql<number>`${pets.categoryId}`.as('categoryId'), status: pets.status };
const PET_COLUMNS = sql`${pets.id}, ${pets.name}, ${pets.categoryId} as "categoryId", ${pets.status}`;

/** A batch's animals, in the batch's order, under the lock: ids ascend in that order. */
const INSERT_BATCH = sql`with lock as materialized (select pg_advisory_xact_lock(${INSERT_LOCK}))
    insert into ${pets} (${name(pets.name)}, ${name(pets.categoryId)}, ${name(pets.status)})
    select t.name, t.category_id, t.status
    from lock, unnest(${sql.placeholder('names')}::text[], ${sql.placeholder('categoryIds')}::bigint[], ${sql.placeholder('statuses')}::text[])
      with ordinality as t(name, category_id, status, position)
    order by t.position
    returning ${PET_COLUMNS}`;
const LOCK_INSERTS = sql`select pg_advisory_xact_lock(${INSERT_LOCK})`;

type RecordRow = Pet & { keyLineage: string; key: string; fingerprint: string; createdAt: Date };

/** The records of a batch's keys, with the animals they created, read under the lock. */
const FIND_RECORDS = sql`select ${idempotencyKeys.keyLineage} as "keyLineage", ${idempotencyKeys.key}, ${idempotencyKeys.fingerprint},
      ${idempotencyKeys.createdAt} as "createdAt", ${PET_COLUMNS}
    from ${idempotencyKeys} inner join ${pets} on ${pets.id} = ${idempotencyKeys.petId}
    where (${idempotencyKeys.keyLineage}, ${idempotencyKeys.key}) in
      (select * from unnest(${sql.placeholder('keyLineages')}::text[], ${sql.placeholder('keys')}::text[]))`;
/** A key's record is (over)written in the transaction that inserts its animal: both exist or neither. */
const WRITE_RECORDS = sql`insert into ${idempotencyKeys}
      (${name(idempotencyKeys.keyLineage)}, ${name(idempotencyKeys.key)}, ${name(idempotencyKeys.fingerprint)}, ${name(idempotencyKeys.petId)}, ${name(idempotencyKeys.createdAt)})
    select * from unnest(${sql.placeholder('keyLineages')}::text[], ${sql.placeholder('keys')}::text[], ${sql.placeholder('fingerprints')}::text[],
      ${sql.placeholder('petIds')}::bigint[], ${sql.placeholder('createdAts')}::timestamptz[])
    on conflict (${name(idempotencyKeys.keyLineage)}, ${name(idempotencyKeys.key)}) do update
    set ${name(idempotencyKeys.fingerprint)} = excluded.${name(idempotencyKeys.fingerprint)},
      ${name(idempotencyKeys.petId)} = excluded.${name(idempotencyKeys.petId)},
      ${name(idempotencyKeys.createdAt)} = excluded.${name(idempotencyKeys.createdAt)}`;

/** The statements of a create. */
const createStatements = () => ({
  insertBatch: statement<Pet>('pets_insert_batch', INSERT_BATCH),
  lockInserts: statement('pets_insert_lock', LOCK_INSERTS),
  findRecords: statement<RecordRow>('idempotency_keys_find_batch', FIND_RECORDS),
  writeRecords: statement('idempotency_keys_write_batch', WRITE_RECORDS),
});
type CreateStatements = ReturnType<typeof createStatements>;

interface Create {
  pet: NewPet;
  /** Present for a create with an `Idempotency-Key`. */
  once?: IdempotentCreate | undefined;
}

const insertAll = async ({ insertBatch }: CreateStatements, on: pg.Pool | pg.PoolClient, creates: NewPet[]): Promise<Pet[]> => {
  const rows = await insertBatch(on, {
    names: creates.map((pet) => pet.name),
    categoryIds: creates.map((pet) => pet.categoryId),
    statuses: creates.map((pet) => pet.status),
  });
  // Ids were taken in the batch's order: the smallest belongs to its first animal.
  return rows.sort((a, b) => a.id - b.id);
};

const recordKey = ({ keyLineage, key }: IdempotentCreate) => `${keyLineage} ${key}`;

/** What to do with each create of a batch: insert it, give it an earlier create's animal, or answer it as found. */
type Plan = { insert: true } | { sameAs: number } | { answer: IdempotentOutcome };

/**
 * The idempotency rule (`decideIdempotentCreate`) over a batch, in its order: a key's live record
 * decides as it would alone, and a key seen earlier in the same batch behaves as that earlier
 * create's record will.
 */
const plan = (creates: Create[], found: Map<string, FoundIdempotencyRecord>): Plan[] => {
  const firstInBatch = new Map<string, { fingerprint: string; index: number }>();
  return creates.map(({ once }, index): Plan => {
    if (!once) return { insert: true };
    const earlier = firstInBatch.get(recordKey(once));
    if (earlier) return earlier.fingerprint === once.fingerprint ? { sameAs: earlier.index } : { answer: { outcome: 'mismatch' } };
    const decision = decideIdempotentCreate(found.get(recordKey(once)), once);
    if (decision.outcome !== 'create') return { answer: decision };
    firstInBatch.set(recordKey(once), { fingerprint: once.fingerprint, index });
    return { insert: true };
  });
};

/** A batch with keys: one transaction, under the lock, that reads their records and writes the new ones. */
const writeKeyedBatch = async (statements: CreateStatements, pool: pg.Pool, creates: Create[]): Promise<IdempotentOutcome[]> => {
  const { lockInserts, findRecords, writeRecords } = statements;
  const client = await pool.connect();
  let broken: unknown;
  try {
    await client.query('begin');
    await lockInserts(client);
    const keyed = creates.flatMap(({ once }) => (once ? [once] : []));
    const rows = await findRecords(client, { keyLineages: keyed.map((once) => once.keyLineage), keys: keyed.map((once) => once.key) });
    const found = new Map(
      rows.map(({ keyLineage, key, fingerprint, createdAt, ...pet }) => [recordKey({ keyLineage, key, fingerprint, now: createdAt }), { fingerprint, createdAt, pet }]),
    );
    const plans = plan(creates, found);
    const inserting = creates.filter((_, index) => 'insert' in (plans[index] ?? {}));
    const inserted = inserting.length === 0 ? [] : await insertAll(statements, client, inserting.map(({ pet }) => pet));
    const petOfCreate = new Map(inserting.map((create, position) => [create, inserted[position] as Pet]));
    const recorded = inserting.flatMap(({ once }, position) => (once ? [{ once, pet: inserted[position] as Pet }] : []));
    if (recorded.length > 0) {
      await writeRecords(client, {
        keyLineages: recorded.map(({ once }) => once.keyLineage),
        keys: recorded.map(({ once }) => once.key),
        fingerprints: recorded.map(({ once }) => once.fingerprint),
        petIds: recorded.map(({ pet }) => pet.id),
        createdAts: recorded.map(({ once }) => once.now),
      });
    }
    await client.query('commit');
    return plans.map((step, index): IdempotentOutcome => {
      if ('answer' in step) return step.answer;
      if ('sameAs' in step) return { outcome: 'replayed', pet: petOfCreate.get(creates[step.sameAs] as Create) as Pet };
      return { outcome: 'created', pet: petOfCreate.get(creates[index] as Create) as Pet };
    });
  } catch (error) {
    broken = await client.query('rollback').then(() => undefined, (failure: unknown) => failure);
    throw error;
  } finally {
    // A connection that could not even roll back is closed rather than handed to the next request.
    client.release(broken instanceof Error ? broken : undefined);
  }
};

/** Every query the pet operations run; the query-plan test checks each uses an index. */
export const petQueries = (db: NodePgDatabase<typeof schema>) => ({
  ...petPageQueries(pets, () => db.select(petFields).from(pets)),
  findById: db.select(petFields).from(pets).where(eq(pets.id, sql.placeholder('id'))),
  // A bounded batch, oldest first through the created_at index. SKIP LOCKED: rows a request is
  // rewriting (an expired key used again) are left for the next batch instead of waited for.
  deleteExpiredIdempotencyRecords: db.delete(idempotencyKeys).where(
    sql`(${idempotencyKeys.keyLineage}, ${idempotencyKeys.key}) in (select ${idempotencyKeys.keyLineage}, ${idempotencyKeys.key} from ${idempotencyKeys} where ${idempotencyKeys.createdAt} < ${sql.placeholder('before')} order by ${idempotencyKeys.createdAt} limit ${sql.placeholder('limit')} for update skip locked)`,
  ),
  insertBatch: INSERT_BATCH,
  findRecords: FIND_RECORDS,
});

/**
 * `reads`: where the request path's reads go (the pipelined reads, or the pool); everything else
 * uses the pool.
 */
export const createPostgresPetRecords = (db: PostgresDrizzle, reads: Queryable): PetRecords => {
  const pool = db.$client;
  const queries = petQueries(db);
  const page = statement<Pet>('pets_page', queries.page);
  const pageWithStatus = statement<Pet>('pets_page_with_status', queries.pageWithStatus);
  const findById = statement<Pet>('pets_find_by_id', queries.findById);
  // Once a minute, in the background: never named (pg's unnamed statement is the empty name).
  const deleteExpired = queries.deleteExpiredIdempotencyRecords.prepare('');
  const statements = createStatements();
  const create = groupCommit(async (creates: Create[]): Promise<IdempotentOutcome[]> =>
    creates.some(({ once }) => once !== undefined)
      ? writeKeyedBatch(statements, pool, creates)
      : (await insertAll(statements, pool, creates.map(({ pet }) => pet))).map((pet) => ({ outcome: 'created', pet })),
  );

  return {
    page: ({ afterId, status, take }) =>
      status === undefined ? page(reads, { afterId, take }) : pageWithStatus(reads, { afterId, status, take }),
    insert: async (pet, signal) => {
      const created = await create({ pet }, signal);
      if (created.outcome !== 'created') throw new Error('a create without a key was not created');
      return created.pet;
    },
    // The lock orders requests with the same idempotency key on every instance: one batch
    // creates; a later one, on any instance, reads its committed record and replays.
    insertOnce: (pet, once, signal) => create({ pet, once }, signal),
    deleteExpiredIdempotencyRecords: async (before, limit) => (await deleteExpired.execute({ before, limit })).rowCount ?? 0,
    findById: async (id) => (await findById(reads, { id }))[0],
  };
};
