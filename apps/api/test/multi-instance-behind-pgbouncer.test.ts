import type { Pet } from '@petstore/core';
import { TEST_POSTGRES_URL, type RunningPgBouncer, startPgBouncer } from '@petstore/core/testing';
import pg from 'pg';
import { afterAll, describe, expect, vi } from 'vitest';
import { type TestStorage, createTestStorage, it, nextPageLink } from '../src/testing/index.js';
import { call } from './support/http.js';
import { figuresOf, isSuccess, keepAliveLoad } from './support/keep-alive-load.js';
import { type ServiceInstance, startInstance } from './support/service-instance.js';

// The service through Debian's PgBouncer as it ships but for its pool mode (no startup parameter
// ignored): what a team's pooled address is. (This file runs in the PostgreSQL project only.)
const CLIENTS = 32;
const LOAD_MS = 6_000;
const STATEMENT_TIMEOUT_MS = 1_000;
/** How long after its cancel a statement may go unanswered before its connection is ended (core's STALL_MARGIN_MS). */
const STALL_MARGIN_MS = 1_000;
/** What a shared 2-core machine may add to an answer's time. */
const SLACK_MS = 1_500;

const figures: Record<string, unknown> = {};
const answeredPastTheTimeoutMs: number[] = [];
const started: { stop(): Promise<unknown> }[] = [];

afterAll(async () => {
  for (const each of started.reverse()) await each.stop();
  console.log(`behind PgBouncer: ${JSON.stringify({ ...figures, answeredPastTheTimeoutMs })}`);
});

const pooler = async (poolMode: 'transaction' | 'session'): Promise<RunningPgBouncer> => {
  const running = await startPgBouncer({ server: TEST_POSTGRES_URL, poolMode });
  started.push(running);
  return running;
};

const instance = async (env: Record<string, string>): Promise<ServiceInstance> => {
  const running = await startInstance({ RATE_LIMIT_PER_MINUTE: '100000000', ...env });
  started.push(running);
  return running;
};

const throughPgBouncer = async (storage: TestStorage) => ({ ...storage.env, DATABASE_URL: (await pooler('transaction')).through(storage.env.DATABASE_URL ?? '') });

/** Every animal, walked page by page: what a reader finds. */
const walk = async (server: { url: string; apiKey: string }) => {
  const ids = new Set<number>();
  for (let next: string | undefined = '/v1/pets?limit=100'; next; ) {
    const response = await call(server, next);
    expect(response.status).toBe(200);
    for (const pet of (await response.json()) as Pet[]) ids.add(pet.id);
    next = nextPageLink(response);
  }
  return ids;
};

/** The service's log lines, parsed. */
const linesOf = (running: ServiceInstance) =>
  running
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; reqId?: string; cause?: { code?: string; message?: string } });

describe('two instances through PgBouncer in transaction mode', () => {
  it('start together (migrating once through it) and answer 32 keep-alive clients with no failure, every acknowledged create read back', async ({ storage }) => {
    const env = await throughPgBouncer(storage);
    const both = await Promise.all([instance(env), instance(env)]);
    const printed = both.map((each) => each.printedKey).filter((key) => key !== undefined);
    expect(printed).toHaveLength(1);
    const apiKey = printed[0] ?? '';
    const loads = both.map((each, index) =>
      keepAliveLoad({ url: each.url, apiKey, clients: CLIENTS / 2, run: `pgbouncer-${String(index)}`, maxRequests: 1_000_000, maxMs: LOAD_MS }),
    );
    await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
    const sent = (await Promise.all(loads.map((load) => load.finish()))).flat();
    figures.underLoad = figuresOf(sent);
    expect(sent.filter((request) => !isSuccess(request)).map(({ outcome }) => (outcome.kind === 'answered' ? `${String(outcome.status)} ${outcome.body}` : outcome.code))).toEqual([]);
    const acknowledged = sent.flatMap(({ method, outcome }) => (method === 'POST' && outcome.kind === 'answered' ? [(JSON.parse(outcome.body) as Pet).id] : []));
    expect(acknowledged.length).toBeGreaterThan(100);
    // Read back through each instance: every acknowledged create is there.
    for (const each of both) {
      const found = await walk({ url: each.url, apiKey });
      expect(acknowledged.filter((id) => !found.has(id))).toEqual([]);
    }
    figures.acknowledgedCreatesReadBack = acknowledged.length;
  });
});

describe.for([
  ['directly', (storage: TestStorage) => Promise.resolve(storage.env)],
  ['through PgBouncer in transaction mode', throughPgBouncer],
] as const)('a statement past DATABASE_STATEMENT_TIMEOUT_MS, %s', ([, envOf]) => {
  it('is cancelled on the server and answered 503 with Retry-After, its cause logged', async () => {
    // A database of its own, whose first start prints a key.
    const storage = await createTestStorage();
    started.push({ stop: () => storage.dispose() });
    const running = await instance({ ...(await envOf(storage)), DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) });
    const server = { url: running.url, apiKey: running.printedKey ?? '' };
    const pet = (await (await call(server, '/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 1 } })).json()) as Pet;
    // Another session holds the table: the service's read waits on the lock, past the bound.
    const holder = new pg.Client({ connectionString: storage.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('lock table pets in access exclusive mode');
      const sentAt = performance.now();
      const response = await call(server, `/v1/pets/${String(pet.id)}`, { headers: { 'X-Request-Id': 'past-the-timeout' } });
      const answeredAfterMs = Math.round(performance.now() - sentAt);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      expect(answeredAfterMs).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 50);
      expect(answeredAfterMs).toBeLessThan(STATEMENT_TIMEOUT_MS + STALL_MARGIN_MS + SLACK_MS);
      // Cancelled, not abandoned: nothing of the service's still waits on the lock.
      const { rows } = await holder.query<{ waiting: number }>(
        "select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      );
      expect(rows[0]?.waiting).toBe(0);
      answeredPastTheTimeoutMs.push(answeredAfterMs);
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    expect((await call(server, `/v1/pets/${String(pet.id)}`)).status).toBe(200);
    // The log is written in batches: the line comes within its flush interval.
    await vi.waitFor(() => {
      const line = linesOf(running).find((each) => each.reqId === 'past-the-timeout' && each.msg.startsWith('answered 503'));
      expect(line).toMatchObject({ msg: 'answered 503: database timed out', cause: { code: '57014' } });
    });
  });
});
