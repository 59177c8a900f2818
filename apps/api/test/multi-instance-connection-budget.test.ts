import { DEFAULT_CONNECTION_BUDGET } from '@petstore/core';
import pg from 'pg';
import { afterAll, expect, vi } from 'vitest';
import { it } from '../src/testing/index.js';
import { call } from './support/http.js';
import { type Sent, figuresOf, keepAliveLoad } from './support/keep-alive-load.js';
import { type OwnPostgres, startOwnPostgres } from './support/postgres-cluster.js';
import { type ServiceInstance, startInstance } from './support/service-instance.js';

// More instances than the database has connections for: four instances of the default budget
// (each up to pool + reads) on a cluster of 30 connections. Every answer is a success or a 503
// whose cause its instance logs, never a 500.
// (This file runs in the PostgreSQL project only; see vitest.config.ts.)
const MAX_CONNECTIONS = 30;
const INSTANCES = 4;
const WANTED = DEFAULT_CONNECTION_BUDGET.pool + DEFAULT_CONNECTION_BUDGET.reads;
const CLIENTS = 32;
const LOAD_MS = 6_000;

let postgres: OwnPostgres | undefined;
/** The test's own session, opened first: the service's connections are as privileged as it. */
let admin: pg.Client | undefined;
let instances: ServiceInstance[] = [];
const figures: Record<string, unknown> = {};

afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  await admin?.end();
  await postgres?.dispose();
  console.log(`connection budget: ${JSON.stringify(figures)}`);
});

interface Line {
  msg: string;
  reqId?: string;
  cause?: { code?: string; message?: string };
}
const linesOf = (instance: ServiceInstance) =>
  instance
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);


/** Takes every connection the cluster has left but `leave`; ends them when told. */
const takeAllBut = async (url: string, leave: number) => {
  const holders: pg.Client[] = [];
  for (;;) {
    const holder = new pg.Client({ connectionString: url });
    try {
      await holder.connect();
      holders.push(holder);
    } catch (error) {
      expect((error as { code?: string }).code).toBe('53300');
      break;
    }
  }
  await Promise.all(holders.splice(0, leave).map((holder) => holder.end()));
  return { release: () => Promise.all(holders.map((holder) => holder.end())) };
};

/** Ends the connections the instances' pools hold (not the reads', nor the test's own). */
const endPoolConnections = (client: pg.Client) =>
  client.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name <> 'petstore-reads' and pid <> pg_backend_pid()");

it('starts every instance and answers only 2xx or 503, each 503 with its cause logged', async ({ storage }) => {
  expect(INSTANCES * WANTED).toBeGreaterThan(MAX_CONNECTIONS);
  postgres = await startOwnPostgres({ maxConnections: MAX_CONNECTIONS });
  admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  const env = { ...storage.env, DATABASE_URL: postgres.url, RATE_LIMIT_PER_MINUTE: '100000000' };
  // The first start makes the key; the others start together, as a fleet scaled out does.
  const first = await startInstance(env);
  instances = [first, ...(await Promise.all(Array.from({ length: INSTANCES - 1 }, () => startInstance(env))))];
  const apiKey = first.printedKey ?? '';

  const loads = instances.map((instance, index) =>
    keepAliveLoad({ url: instance.url, apiKey, clients: CLIENTS / INSTANCES, run: `budget-${String(index)}`, maxRequests: 1_000_000, maxMs: LOAD_MS }),
  );
  await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
  const sent: Sent[] = (await Promise.all(loads.map((load) => load.finish()))).flat();
  figures.underLoad = figuresOf(sent);
  const unexpected = sent.filter(({ outcome }) => outcome.kind !== 'answered' || !((outcome.status >= 200 && outcome.status < 300) || outcome.status === 503));
  expect(unexpected.map(({ outcome }) => (outcome.kind === 'answered' ? `${String(outcome.status)} ${outcome.body}` : outcome.code))).toEqual([]);
  const refused = sent.flatMap(({ outcome }) => (outcome.kind === 'answered' && outcome.status === 503 ? [outcome.headers] : []));
  for (const headers of refused) expect(headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
  // Every 503 says why in its instance's log.
  await vi.waitFor(() => {
    const answered503 = new Map(instances.flatMap(linesOf).filter((line) => line.msg.startsWith('answered 503')).map((line) => [line.reqId, line]));
    for (const headers of refused) {
      expect(answered503.get(String(headers['x-request-id']))).toMatchObject({
        msg: expect.stringMatching(/^answered 503: database (out of connections|timed out)$/),
        cause: { message: expect.any(String) },
      });
    }
  });
  figures.refusedUnderLoad = refused.length;
});

it('says at the start, in so many words, that the database is out of connections, and serves with what it got', async ({ storage }) => {
  if (!postgres || !admin) throw new Error('the test before this one started the cluster');
  await endPoolConnections(admin);
  // Room for the reads and a few of the pool's connections, not for the whole budget.
  const taken = await takeAllBut(postgres.url, DEFAULT_CONNECTION_BUDGET.reads + 3);
  let fifth: ServiceInstance | undefined;
  try {
    fifth = await startInstance({ ...storage.env, DATABASE_URL: postgres.url, RATE_LIMIT_PER_MINUTE: '100000000' });
    const started = fifth;
    await vi.waitFor(() => {
      const short = linesOf(started).find((line) => line.msg.startsWith('PostgreSQL is out of connections'));
      expect(short).toMatchObject({ cause: { code: '53300', message: 'sorry, too many clients already' } });
      expect(short?.msg).toContain(`DATABASE_POOL_SIZE ${String(DEFAULT_CONNECTION_BUDGET.pool)} + DATABASE_READ_CONNECTIONS ${String(DEFAULT_CONNECTION_BUDGET.reads)}`);
    });
    expect((await call({ url: fifth.url, apiKey: instances[0]?.printedKey ?? '' }, '/v1/pets?limit=5')).status).toBe(200);
  } finally {
    await fifth?.stop();
    await taken.release();
  }
});

it('answers a create that finds no connection 503 with Retry-After, logging "sorry, too many clients already", and serves again once there is room', async () => {
  const [instance] = instances;
  if (!postgres || !admin || !instance) throw new Error('the test before this one started the instances');
  const server = { url: instance.url, apiKey: instance.printedKey ?? '' };
  // The pools' idle connections ended, and every slot left taken: a create must open a
  // connection, and the database has none to give.
  await endPoolConnections(admin);
  const taken = await takeAllBut(postgres.url, 0);
  try {
    const response = await call(server, '/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 1 }, headers: { 'X-Request-Id': 'no-connection-left' } });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    await vi.waitFor(() => {
      expect(linesOf(instance).find((line) => line.reqId === 'no-connection-left')).toMatchObject({
        msg: 'answered 503: database out of connections',
        cause: { code: '53300', message: 'sorry, too many clients already' },
      });
    });
  } finally {
    await taken.release();
  }
  expect((await call(server, '/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 1 } })).status).toBe(201);
});
