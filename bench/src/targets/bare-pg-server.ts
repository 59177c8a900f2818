// The physical limit of the PostgreSQL stack: node:http and pg, no framework, no library beyond
// the driver, the same statements and table as the service, one API key held in memory.
import pg from 'pg';
import { type BarePet, serveBare } from './bare-http.js';
import { databaseUrl } from './ready.js';

/**
 * `named`: each statement prepared once per connection, as a bare server on a direct address
 * would; unnamed, parsed and planned on every call, as one must behind a pooler in transaction
 * mode, where the next transaction may run on a server connection that never prepared it.
 */
export const serveBarePostgres = ({ named }: { named: boolean }): void => {
  const pool = new pg.Pool({ connectionString: databaseUrl(), max: 10 });
  // int8 ids as numbers, as the service reads them.
  pg.types.setTypeParser(pg.types.builtins.INT8, Number);

  const columns = 'id, name, category_id as "categoryId", status';
  const statement = (name: string, text: string) => {
    const as = named ? name : undefined;
    return async (values: unknown[]) => (await pool.query<BarePet>({ name: as, text, values })).rows;
  };
  const listAll = statement('list', `select ${columns} from pets where id > $1 order by id limit $2`);
  const listByStatus = statement('list_status', `select ${columns} from pets where status = $1 and id > $2 order by id limit $3`);
  const byId = statement('by_id', `select ${columns} from pets where id = $1`);
  const insert = statement('insert', `insert into pets (name, category_id, status) values ($1, $2, $3) returning ${columns}`);

  serveBare({
    page: (afterId, take, status) => (status === null ? listAll([afterId, take]) : listByStatus([status, afterId, take])),
    byId: async (id) => (await byId([id]))[0],
    insert: async (name, categoryId, status) => {
      const [pet] = await insert([name, categoryId, status]);
      if (!pet) throw new Error('INSERT … RETURNING returned no row');
      return pet;
    },
  });
};
