import { randomBytes } from 'node:crypto';
import { PET_STATUSES, createApiKeys, openPostgresDatabase } from '@petstore/core';
import pg from 'pg';
import { benchPostgresUrl } from './bench-settings.js';

export interface SeededPostgres {
  url: string;
  apiKey: string;
  drop(): Promise<void>;
}

const withClient = async <T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/**
 * A new database with `count` animals (statuses in turn, as in the SQLite seed) and one API key,
 * dropped afterwards, on the server at `serverUrl`, whose own database is only used to create and
 * drop it. The schema comes from the real migrations; the rows from one generate_series insert,
 * since a million requests would take minutes.
 */
export const seedPostgres = async (count: number, serverUrl: string = benchPostgresUrl()): Promise<SeededPostgres> => {
  const name = `petstore_bench_${randomBytes(6).toString('hex')}`;
  await withClient(serverUrl, (admin) => admin.query(`create database ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const drop = () => withClient(serverUrl, (admin) => admin.query(`drop database if exists ${name} with (force)`)).then(() => undefined);
  try {
    const db = await openPostgresDatabase(url.toString(), { connections: { pool: 1, reads: 0 } });
    const { token } = await createApiKeys(db.apiKeys).create('bench');
    await db.close();
    await withClient(url.toString(), async (client) => {
      await client.query(
        `insert into pets (name, category_id, status)
         select 'pet ' || n, 1 + (n - 1) % 50, ($2::text[])[1 + (n - 1) % cardinality($2::text[])]
         from generate_series(1, $1::int) as n`,
        [count, PET_STATUSES],
      );
      // Fresh statistics, as a database that has lived a while would have.
      await client.query('vacuum analyze pets');
    });
    return { url: url.toString(), apiKey: token, drop };
  } catch (error) {
    await drop();
    throw error;
  }
};
