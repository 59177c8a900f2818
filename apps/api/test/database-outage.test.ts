import { execFileSync } from 'node:child_process';
import type { Pet } from '@petstore/core';
import { afterAll, describe, expect } from 'vitest';
import { TEST_ENGINE, it } from '../src/testing/index.js';
import { call, expectError, postJson } from './support/http.js';
import { type ServiceInstance, Tally, startInstance } from './support/service-instance.js';
import { type TcpProxy, startTcpProxy } from './support/tcp-proxy.js';

// The database goes away under a running instance: PostgreSQL behind a proxy the test cuts, or the
// SQLite file made read-only. Requests answer 503 with Retry-After, promptly, and all is well after.
const CONNECT_TIMEOUT_MS = 1_000;
const STATEMENT_TIMEOUT_MS = 2_000;
/** The bound plus what a shared 2-core machine may add. */
const SLOWEST_ALLOWED_MS = STATEMENT_TIMEOUT_MS + 1_500;
/** How long a connection in use may stay silent, as operating.md gives it: the statement's bound and a second. */
const STALL_BOUND_MS = STATEMENT_TIMEOUT_MS + 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let proxy: TcpProxy | undefined;
let instance: ServiceInstance;
let key: string;
const figures: Record<string, unknown> = { engine: TEST_ENGINE, connectTimeoutMs: CONNECT_TIMEOUT_MS, statementTimeoutMs: STATEMENT_TIMEOUT_MS };

const server = () => ({ url: instance.url, apiKey: key });
const create = (name: string) => postJson(`${instance.url}/v1/pets`, key, { name, categoryId: 1 });
const until = async (check: () => Promise<boolean>, what: string) => {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still not ${what} after 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

it.beforeAll(async ({ storage }) => {
  const env: Record<string, string> = {
    ...storage.env,
    DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
    DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    // The creates run back to back, and a fast 503 comes quickly: the default quota would be spent
    // within the test's minute, and a 429 is not what this test is about.
    RATE_LIMIT_PER_MINUTE: '1000000',
  };
  if (TEST_ENGINE === 'postgres') {
    const target = new URL(storage.env.DATABASE_URL ?? '');
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    target.host = `127.0.0.1:${proxy.port}`;
    env.DATABASE_URL = target.toString();
  }
  instance = await startInstance(env);
  key = instance.printedKey ?? '';
}, 60_000);

afterAll(async () => {
  const code = await instance.stop();
  if (code !== 0) console.log(instance.output().slice(-3000));
  expect(code).toBe(0);
  await proxy?.close();
  console.log(`database outage: ${JSON.stringify(figures)}`);
});

/** chattr +i: read-only for every user, root included, and for the file handles already open. */
const immutable = (on: boolean, files: string[]) => {
  try {
    execFileSync('chattr', [on ? '+i' : '-i', ...files], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(`chattr ${on ? '+i' : '-i'} failed: this test needs root and a file system with the immutable attribute, such as ext4.`, { cause: error });
  }
};

describe.runIf(TEST_ENGINE === 'postgres')('when PostgreSQL cannot be reached', () => {
  it('answers 503 with Retry-After on both transports, and recovers with every acknowledged create stored', async () => {
    const acknowledged: number[] = [];
    const tally = new Tally();
    const record = async (name: string) => {
      const { response, body } = await tally.time(() => create(name));
      if (response.status === 201) acknowledged.push((JSON.parse(body) as Pet).id);
      return response;
    };
    for (let index = 0; index < 5; index++) expect((await record(`before ${index}`)).status).toBe(201);

    // Creates in flight when the network fails.
    let traffic = true;
    const continuing = () => traffic;
    const load = (async () => {
      for (let index = 0; continuing(); index++) await record(`during ${index}`);
    })();
    await new Promise((resolve) => setTimeout(resolve, 200));
    proxy?.cut();
    const cutAt = performance.now();
    try {
      await until(async () => (await fetch(`${instance.url}/readyz`)).status === 503, 'unready');
      const rest = await call(server(), '/v1/pets');
      expect(rest.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      await expectError(rest, 503, 'SERVICE_UNAVAILABLE');
      const trpc = await fetch(`${instance.url}/trpc/listPets`, { headers: { Authorization: `Bearer ${key}` } });
      expect(trpc.status).toBe(503);
      expect(trpc.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      expect(((await trpc.json()) as { error: { data: { code: string } } }).error.data.code).toBe('SERVICE_UNAVAILABLE');
      await expectError(await call(server(), '/readyz', { key: null }), 503, 'SERVICE_UNAVAILABLE');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      traffic = false;
      await load;
    }
    figures.whileCut = { statuses: tally.statuses, slowestMs: tally.slowestMs, cutForMs: Math.round(performance.now() - cutAt) };
    expect(tally.serverErrors).toBe(tally.statuses[503] ?? 0);
    expect(tally.statuses[503]).toBeGreaterThan(0);
    expect(tally.slowestMs).toBeLessThan(SLOWEST_ALLOWED_MS);

    proxy?.restore();
    await until(async () => (await fetch(`${instance.url}/readyz`)).status === 200, 'ready again');
    expect((await record('after')).status).toBe(201);
    // No hidden failure: every create answered 201 is stored.
    for (const id of acknowledged) expect((await call(server(), `/v1/pets/${id}`)).status).toBe(200);
    figures.acknowledgedCreatesFound = acknowledged.length;
  });

  it('fails a statement whose network stalls once its connection is silent past the bound, and recovers', async () => {
    const [pet] = (await (await call(server(), '/v1/pets?limit=1')).json()) as Pet[];
    if (!pet) throw new Error('the test before this one stored animals');
    // Idle past the bound first: an idle pooled connection may stay silent, and must still be
    // watched once it is used again.
    await sleep(STALL_BOUND_MS + 500);
    proxy?.stall();
    const stalledAt = performance.now();
    try {
      const [read, written] = await Promise.all([call(server(), `/v1/pets/${pet.id}`), create('during the stall')]);
      const answeredAfterMs = Math.round(performance.now() - stalledAt);
      figures.whileStalled = { answeredAfterMs, boundMs: STALL_BOUND_MS };
      for (const response of [read, written]) {
        expect(response.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
        await expectError(response, 503, 'SERVICE_UNAVAILABLE');
      }
      // Not before the bound (the statement's cancel could not have been answered), and
      // not long after it.
      expect(answeredAfterMs).toBeGreaterThanOrEqual(STALL_BOUND_MS - 50);
      expect(answeredAfterMs).toBeLessThan(STALL_BOUND_MS + 1_500);
    } finally {
      proxy?.restore();
    }
    await until(async () => (await fetch(`${instance.url}/readyz`)).status === 200, 'ready again');
    expect((await call(server(), `/v1/pets/${pet.id}`)).status).toBe(200);
    expect((await create('after the stall')).status).toBe(201);
  });
});

describe.runIf(TEST_ENGINE === 'sqlite')('when the SQLite file cannot be written', () => {
  it('answers creates with 503 and Retry-After, still serves reads, and takes creates again after', async ({ storage }) => {
    const file = storage.env.PETSTORE_DB ?? '';
    expect((await create('before')).status).toBe(201);
    const files = [file, `${file}-wal`];
    immutable(true, files);
    const tally = new Tally();
    try {
      for (let index = 0; index < 10; index++) {
        const { response, body } = await tally.time(() => create(`while read-only ${index}`));
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
        expect(JSON.parse(body)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
        expect((await tally.time(() => fetch(`${instance.url}/v1/pets?limit=5`, { headers: { Authorization: `Bearer ${key}` } }))).response.status).toBe(200);
      }
      const trpc = await tally.time(() => postJson(`${instance.url}/trpc/createPet`, key, { name: 'Rex', categoryId: 1 }));
      expect(trpc.response.status).toBe(503);
      expect(trpc.response.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      expect((await fetch(`${instance.url}/readyz`)).status).toBe(200);
    } finally {
      immutable(false, files);
    }
    figures.whileReadOnly = { statuses: tally.statuses, slowestMs: tally.slowestMs };
    expect(tally.slowestMs).toBeLessThan(SLOWEST_ALLOWED_MS);
    const after = await create('after');
    expect(after.status).toBe(201);
    const listed = (await (await call(server(), '/v1/pets?limit=100')).json()) as Pet[];
    expect(listed.map((pet) => pet.name)).toEqual(['before', 'after']);
  });
});
