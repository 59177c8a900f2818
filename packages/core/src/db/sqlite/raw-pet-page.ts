import { type Placeholder, getTableColumns } from 'drizzle-orm';
import type { Pet } from '../../pets/pet.js';
import type { SqliteDrizzle } from './open-sqlite-database.js';
import { pets } from './schema.js';

/** The order the columns of `select() from pets` come in, and so each raw row's. */
const PET_FIELDS = ['id', 'name', 'categoryId', 'status'] as const;
if (Object.keys(getTableColumns(pets)).join() !== PET_FIELDS.join()) {
  throw new Error('the pets table changed: update PET_FIELDS to its columns');
}

type PetRow = [Pet['id'], Pet['name'], Pet['categoryId'], Pet['status']];

/**
 * A page query run on better-sqlite3 itself: the SQL is still the one Drizzle builds from the
 * schema, but each row comes back as an array made into a Pet here. Drizzle's generic row mapping
 * checks every column of every row, a cost a long page feels (DEVELOPERS.md, The front door), and
 * no column of a pet needs its decoding (no dates, no JSON).
 */
export const rawPetPage = (db: SqliteDrizzle, query: { toSQL(): { sql: string; params: unknown[] } }) => {
  const { sql, params } = query.toSQL();
  const names = params.map((param) => (param as Placeholder).name);
  const statement = db.$client.prepare<unknown[], PetRow>(sql).raw(true);
  return (values: Record<string, unknown>): Pet[] =>
    statement.all(...names.map((name) => values[name])).map(([id, name, categoryId, status]) => ({ id, name, categoryId, status }));
};

