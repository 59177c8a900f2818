import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { PetRecords } from '../database.js';
import type { SqliteDrizzle } from './open-sqlite-database.js';
import { pets } from './schema.js';

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
  };
};

/** Statements are prepared once: a request only binds values and steps through rows. */
export const createSqlitePetRecords = (db: SqliteDrizzle): PetRecords => {
  const queries = petQueries(db);
  const page = queries.page.prepare();
  const pageWithStatus = queries.pageWithStatus.prepare();
  const insert = queries.insert.prepare();
  const findById = queries.findById.prepare();

  return {
    page: async ({ afterId, status, take }) =>
      status === undefined ? page.all({ afterId, take }) : pageWithStatus.all({ afterId, status, take }),
    insert: async (pet) => {
      const [created] = insert.all(pet);
      if (!created) throw new Error('INSERT … RETURNING returned no row');
      return created;
    },
    findById: async (id) => findById.get({ id }),
  };
};
