import { DEFAULT_CONNECTION_BUDGET } from '@petstore/core';
import { startPgBouncer } from '@petstore/core/testing';
import pg from 'pg';
import { afterAll, describe, expect } from 'vitest';
import { TEST_ENGINE, it } from '../src/testing/index.js';
import { call } from './support/http.js';
import { type OwnPostgres, startOwnPostgres } from './support/postgres-cluster.js';
import { type ServiceInstance, startInstance } from './support/service-instance.js';

// How the service's request-path statements reach PostgreSQL in its default settings, read from
// PostgreSQL's own statistics (pg_stat_statements, planning counted): on a direct address each is
// named and prepared once per connection, so it is parsed once there and planned far fewer times
// than it runs; through PgBouncer in transaction mode none is named, so each run is parsed and
// planned (docs/decisions/2026-11-29-named-where-the-connection-keeps-them.md).
const CALLS = 60;
/**
 * The most a named statement is planned on one connection: PostgreSQL's plan cache plans its first
 * five runs for their values, then makes a generic plan once and keeps it when no dearer.
 */
const PLANS_PER_CONNECTION = 6;

let postgres: OwnPostgres | undefined;
const started: { stop(): Promise<unknown> }[] = [];
const figures: Record<string, unknown> = {};

afterAll(async () => {
  for (const each of started.reverse()) await each.stop();
  await postgres?.dispose();
  console.log(`statements: ${JSON.stringify(figures)}`);
});

const onAdmin = async <T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/** A new database on the file's own cluster, which counts every statement and its planning. */
const database = async (name: string): Promise<string> => {
  postgres ??= await startOwnPostgres({ settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' } });
  const url = new URL(postgres.url);
  await onAdmin(url.toString(), (client) => client.query(`create database ${name}`));
  url.pathname = `/${name}`;
  await onAdmin(url.toString(), (client) => client.query('create extension pg_stat_statements'));
  return url.toString();
};

interface Counted {
  calls: number;
  plans: number;
}

/** Runs the page of 100 and the get by id CALLS times each on `instance`, then reads their statements' counts. */
const countStatements = async (url: string, instance: ServiceInstance) => {
  const server = { url: instance.url, apiKey: instance.printedKey ?? '' };
  for (let index = 0; index < 5; index++) {
    expect((await call(server, '/v1/pets', { method: 'POST', json: { name: `pet ${String(index)}`, categoryId: 1, status: 'available' } })).status).toBe(201);
  }
  await onAdmin(url, (client) => client.query('select pg_stat_statements_reset()'));
  for (let index = 0; index < CALLS; index++) {
    expect((await call(server, '/v1/pets?status=available&limit=100')).status).toBe(200);
    expect((await call(server, '/v1/pets/1')).status).toBe(200);
  }
  const rows = await onAdmin(url, async (client) =>
    (
      await client.query<{ query: string; calls: string; plans: string }>(
        "select query, calls::text, plans::text from pg_stat_statements where query like '%from \"pets\"%' and query not like '%pg_stat_statements%'",
      )
    ).rows,
  );
  const of = (matches: (query: string) => boolean): Counted =>
    rows.filter(({ query }) => matches(query)).reduce((sum, row) => ({ calls: sum.calls + Number(row.calls), plans: sum.plans + Number(row.plans) }), { calls: 0, plans: 0 });
  return {
    page: of((query) => query.includes('"status" =') && query.includes('limit')),
    byId: of((query) => query.includes('"id" =') && !query.includes('limit')),
  };
};

describe.runIf(TEST_ENGINE === 'postgres')('in the default settings, the request path\'s statements', () => {
  it('on a direct address are named: parsed once per connection, planned far fewer times than they run', async ({ storage }) => {
    const url = await database('direct');
    const instance = await startInstance({ ...storage.env, DATABASE_URL: url });
    started.push(instance);
    const counted = await countStatements(url, instance);
    figures.direct = counted;
    for (const statement of [counted.page, counted.byId]) {
      expect(statement.calls).toBe(CALLS);
      // Both reads run on the read connections, pipelined.
      expect(statement.plans).toBeLessThanOrEqual(DEFAULT_CONNECTION_BUDGET.reads * PLANS_PER_CONNECTION);
    }
  });

  it('through PgBouncer in transaction mode are unnamed: each run parsed and planned', async ({ storage }) => {
    const url = await database('through_pgbouncer');
    const pooler = await startPgBouncer({ server: url, poolMode: 'transaction' });
    started.push(pooler);
    const through = pooler.through(url);
    const instance = await startInstance({ ...storage.env, DATABASE_URL: through });
    started.push(instance);
    const counted = await countStatements(url, instance);
    figures.throughPgBouncer = counted;
    for (const statement of [counted.page, counted.byId]) {
      expect(statement.calls).toBe(CALLS);
      expect(statement.plans).toBe(CALLS);
    }
  });
});
