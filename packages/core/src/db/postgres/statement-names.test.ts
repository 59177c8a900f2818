import pg from 'pg';
import { describe, expect } from 'vitest';
import { it } from '../../testing/fixtures.js';
import { type PgBouncerPoolMode, startPgBouncer } from '../../testing/pgbouncer.js';
import { TEST_POSTGRES_URL } from '../../testing/scratch-postgres.js';
import { nameStatementsWhereKept } from './statement-names.js';

const NAMED = { name: 'statement_names_probe', text: 'select 1 as one' };

/** A connection to `url` that names its statements only where kept; `pipeline` as the reads' connections. */
const opened = async (url: string, pipeline = false) => {
  const client = new pg.Client({ connectionString: url, pipeline });
  // A test that fails ends with its database dropped under its connections.
  client.on('error', () => undefined);
  await client.connect();
  await nameStatementsWhereKept(client);
  return client;
};

/** The names prepared on the server process that runs `client`'s next statement. */
const prepared = async (client: pg.Client) =>
  (await client.query<{ name: string }>({ text: 'select name from pg_prepared_statements', queryMode: 'extended' } as pg.QueryConfig)).rows.map(({ name }) => name);

describe('PostgreSQL statement names', () => {
  it.for([false, true])('on a direct address, are kept once the connection knows its server process (pipelined: %s)', async (pipeline, { scratchPostgres: { url } }) => {
    const client = await opened(url, pipeline);
    try {
      for (let run = 0; run < 3; run++) expect((await client.query({ ...NAMED })).rows).toEqual([{ one: 1 }]);
      expect(await prepared(client)).toEqual([NAMED.name]);
    } finally {
      await client.end();
    }
  });

  it.for<PgBouncerPoolMode>(['transaction', 'session'])('through PgBouncer in %s mode, are never sent', async (poolMode, { scratchPostgres: { url } }) => {
    // In transaction mode, three clients take turns on two server connections: a name prepared on
    // one would be missing on the other, or prepared twice. In session mode each holds its own.
    const pooler = await startPgBouncer({ server: TEST_POSTGRES_URL, poolMode, settings: { default_pool_size: poolMode === 'transaction' ? '2' : '3' } });
    const clients: pg.Client[] = [];
    try {
      for (let index = 0; index < 3; index++) clients.push(await opened(pooler.through(url), index === 2));
      // Drizzle passes one config object on every run: it keeps its name.
      const shared = clients.map(() => ({ ...NAMED }));
      for (let run = 0; run < 10; run++) {
        const answers = await Promise.all(clients.map((client, index) => client.query(shared[index] as typeof NAMED)));
        for (const answer of answers) expect(answer.rows).toEqual([{ one: 1 }]);
      }
      for (const client of clients) expect(await prepared(client)).toEqual([]);
      for (const config of shared) expect(config.name).toBe(NAMED.name);
    } finally {
      await Promise.all(clients.map((client) => client.end()));
      await pooler.stop();
    }
  });
});
