import { setTimeout as sleep } from 'node:timers/promises';
import type { Pet } from '@petstore/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPetstoreClient } from '../../../packages/client/src/index.js';
import { allPets } from './support/idempotent-creates.js';
import { type Sent, figuresOf, isSuccess, keepAliveLoad } from './support/keep-alive-load.js';
import { startBusyNeighbours } from './support/neighbours.js';
import { type RunningNginx, startNginx } from './support/nginx.js';
import { type OwnPostgres, startOwnPostgres } from './support/postgres-cluster.js';
import { type OwnRedis, freePort, startOwnRedis } from './support/redis-server.js';
import { type ServiceInstance, startInstance } from './support/service-instance.js';

// The deployment docker-compose.yml ships, as processes: Debian's nginx loading deploy/petstore.conf
// itself, clients reaching it over HTTPS, two instances of the service on one PostgreSQL and one Redis, each of those a server of
// the test's own, since the test stops them. Every fault is made under keep-alive load through
// nginx, and what the clients got is counted. (A multi-instance file: it runs in the PostgreSQL
// project only.)

const CLIENTS = 32;
/** Bounds every load, whatever happens to the test. */
const LOAD_BOUNDS = { maxRequests: 300_000, maxMs: 60_000 };
/**
 * Load before and after each fault, so that the fault falls in the middle of it, once nginx holds
 * its connections to each instance: it opens them in the load's first few hundred milliseconds,
 * then none while the load is steady. A stop while nginx is still opening them can find one in the
 * instance's accept queue, which the kernel resets as the listener closes (see
 * docs/decisions/2026-11-27-nginx-through-restarts-and-crashes.md).
 */
const STEADY_MS = 2_000;
/** How long PostgreSQL and Redis stay away before they start again. */
const AWAY_MS = 1_000;
/** After PostgreSQL is back, every request sent later than this is answered 2xx. */
const RECOVERY_MS = 1_000;

const ENV = {
  // High enough that no load here meets the quota, which still counts every request in Redis.
  RATE_LIMIT_PER_MINUTE: '1000000',
  // As multi-instance-redis-outage.test.ts: a busy machine must not make Redis look away.
  REDIS_TIMEOUT_MS: '250',
};

let postgres: OwnPostgres;
let redis: OwnRedis;
let nginx: RunningNginx;
let apiKey: string;
const ports: number[] = [];
const instances: ServiceInstance[] = [];
const figures: Record<string, unknown> = {};

const startOn = async (slot: number) => {
  instances[slot] = await startInstance({ ...ENV, DATABASE_URL: postgres.url, REDIS_URL: redis.url, PORT: String(ports[slot]) });
};
const instanceUrl = (slot: number) => `http://127.0.0.1:${String(ports[slot])}`;
const until = async (check: () => Promise<boolean>, what: string, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`still not ${what} after ${String(ms)} ms`);
    await sleep(20);
  }
};
const readiness = async (slot: number) => {
  const response = await fetch(`${instanceUrl(slot)}/readyz`);
  return { status: response.status, body: (await response.json()) as { degraded?: string[] } };
};
const ready = (slot: number) => until(async () => (await readiness(slot)).status === 200, `ready on ${instanceUrl(slot)}`);

/** nginx's view of the load: requests it sent to a second instance, the first having refused the connection or failed. */
const passedOn = () => {
  const passed = nginx.requests().filter((request) => request.upstreams.length > 1);
  const creates = passed.filter((request) => request.method === 'POST');
  /** Sent whole to an instance that then failed: sent twice. */
  const sentTwice = creates.filter((request) => (request.upstreamBytesSent[0] ?? 0) > 0);
  return {
    GET: passed.length - creates.length,
    POST: creates.length,
    POSTSentTwice: sentTwice.length,
    /** Of those, creates the first instance had stored before it failed: the second answered from its record. */
    POSTReplayed: sentTwice.filter((request) => request.replayed).length,
  };
};
const noLiveUpstreams = () => (nginx.errors().match(/no live upstreams/g) ?? []).length;
/**
 * What nginx said of each upstream it failed on, but a refused connection (an instance not
 * listening, which nginx passes over for the other): why a request was not answered 2xx.
 */
const upstreamFailures = () => nginx.errors().split('\n').filter((line) => line.includes('upstream') && !line.includes('(111: Connection refused)'));

/** The acknowledged creates of `sent` that are not stored. */
const lostOf = async (sent: Sent[]) => {
  const stored = new Map((await allPets({ url: instanceUrl(0), apiKey })).map((pet) => [pet.id, pet.name]));
  return sent.filter(({ method, outcome }) => method === 'POST' && outcome.kind === 'answered' && outcome.status === 201).filter(({ name, outcome }) => {
    const pet = outcome.kind === 'answered' ? (JSON.parse(outcome.body) as Pet) : undefined;
    return pet === undefined || stored.get(pet.id) !== name;
  });
};

beforeAll(async () => {
  [postgres, redis] = await Promise.all([startOwnPostgres(), startOwnRedis()]);
  ports.push(await freePort(), await freePort());
  // One first, so that exactly one creates the database's first key and prints it.
  await startOn(0);
  await startOn(1);
  apiKey = instances[0]?.printedKey ?? '';
}, 60_000);

// An nginx of its own for each fault: what nginx remembers of one (an instance it marked failed)
// must not change the figures of the next.
beforeEach(async () => {
  nginx = await startNginx(ports.map((port) => `127.0.0.1:${String(port)}`));
});
afterEach(() => nginx.dispose());

afterAll(async () => {
  const codes = await Promise.all(instances.map((instance) => instance.stop()));
  await redis.kill();
  await postgres.dispose();
  console.log(`behind nginx: ${JSON.stringify(figures)}`);
  expect(codes).toEqual([0, 0]);
});

describe('the shipped deployment behind nginx', () => {
  it('is deploy/petstore.conf as shipped, but for the upstream addresses and the listening ports, over HTTPS', () => {
    const { changed } = nginx.config;
    expect(changed.map(({ shipped }) => shipped.trim().split(/\s+/).slice(0, 2).join(' '))).toEqual(['server api-1:3000', 'server api-2:3000', 'listen 80;', 'listen 443']);
    expect(nginx.url).toMatch(/^https:/);
    // The rest of each changed line, such as an upstream server's parameters, is as shipped.
    for (const { shipped, loaded } of changed) expect(loaded.trim().split(/\s+/).slice(2)).toEqual(shipped.trim().split(/\s+/).slice(2));
  });

  it('answers every request 2xx while the instances restart one after the other, beside two busy neighbours', async () => {
    // The host's other tenants keep both cores busy: each instance sheds only its own overload.
    const neighbours = startBusyNeighbours(2);
    const load = keepAliveLoad({ url: nginx.url, apiKey, clients: CLIENTS, run: 'rolling', ...LOAD_BOUNDS });
    const restarts: { exitCode: number | null | undefined; exitedMs: number; readyMs: number }[] = [];
    try {
      await sleep(STEADY_MS);
      for (const slot of [0, 1]) {
        const signalledAt = performance.now();
        const exitCode = await instances[slot]?.stop();
        const exitedMs = Math.round(performance.now() - signalledAt);
        await startOn(slot);
        await ready(slot);
        restarts.push({ exitCode, exitedMs, readyMs: Math.round(performance.now() - signalledAt) });
      }
      await sleep(STEADY_MS);
    } finally {
      await load.finish();
      await neighbours.stop();
    }
    const { sent } = load;
    const notOk = sent.filter((request) => !isSuccess(request));
    figures.rollingRestart = { ...figuresOf(sent), restarts, passedOn: passedOn(), noLiveUpstreams: noLiveUpstreams() };
    console.log(`rolling restart through nginx: ${JSON.stringify(figures.rollingRestart)}`);
    expect(
      notOk.map(({ method, outcome }) => ({ method, outcome: outcome.kind === 'answered' ? outcome.status : outcome.code })),
      upstreamFailures().join('\n'),
    ).toEqual([]);
    expect(restarts.map(({ exitCode }) => exitCode)).toEqual([0, 0]);
  }, 90_000);

  it('answers every GET, and every create of the typed client once, when an instance is killed', async () => {
    const reads = keepAliveLoad({ url: nginx.url, apiKey, clients: CLIENTS / 2, run: 'reads', ...LOAD_BOUNDS, readsOnly: true });
    const petstore = createPetstoreClient({ url: nginx.url, apiKey });
    const names: string[] = [];
    const failures: string[] = [];
    let creating = true;
    const deadline = performance.now() + LOAD_BOUNDS.maxMs;
    const creator = async (client: number) => {
      for (let turn = 0; creating && turn < LOAD_BOUNDS.maxRequests / CLIENTS && performance.now() < deadline; turn++) {
        const name = `typed ${String(client)}/${String(turn)}`;
        names.push(name);
        await petstore.createPet.mutate({ name, categoryId: 1 + (turn % 9) }).catch((error: unknown) => failures.push(`${name}: ${String(error)}`));
      }
    };
    const creators = Promise.all(Array.from({ length: CLIENTS / 2 }, (_, client) => creator(client)));
    try {
      await sleep(STEADY_MS);
      await instances[0]?.kill();
      await sleep(STEADY_MS);
    } finally {
      creating = false;
      await creators;
      await reads.finish();
    }
    const sent = reads.sent;
    await startOn(0);
    await ready(0);

    const stored = (await allPets({ url: instanceUrl(1), apiKey })).filter((pet) => pet.name.startsWith('typed '));
    const byName = new Map<string, number>();
    for (const pet of stored) byName.set(pet.name, (byName.get(pet.name) ?? 0) + 1);
    const duplicates = [...byName.values()].reduce((sum, count) => sum + count - 1, 0);
    const missing = names.filter((name) => !byName.has(name));
    const readFailures = sent.filter((request) => !isSuccess(request)).length;
    const passed = passedOn();
    figures.sigkill = { reads: figuresOf(sent), typedCreates: names.length, typedFailures: failures.length, stored: stored.length, duplicates, missing: missing.length, passedOn: passed, noLiveUpstreams: noLiveUpstreams() };
    console.log(`SIGKILL of one instance through nginx: ${JSON.stringify(figures.sigkill)}`);
    expect(failures).toEqual([]);
    expect(readFailures).toBe(0);
    expect(missing).toEqual([]);
    expect(duplicates).toBe(0);
    // The kill cut creates in flight on the killed instance, or nothing here was tried.
    expect(passed.POSTSentTwice).toBeGreaterThan(0);
  }, 90_000);

  it('answers only 503 with Retry-After while PostgreSQL restarts, 2xx soon after, and loses no acknowledged create', async () => {
    const load = keepAliveLoad({ url: nginx.url, apiKey, clients: CLIENTS, run: 'postgres', ...LOAD_BOUNDS });
    let stoppingAt: number;
    let backAt: number;
    try {
      await sleep(STEADY_MS);
      stoppingAt = performance.now();
      await postgres.stop();
      await sleep(AWAY_MS);
      await postgres.start();
      backAt = performance.now();
      await sleep(RECOVERY_MS + STEADY_MS);
    } finally {
      await load.finish();
    }
    const { sent } = load;

    const notOk = sent.filter((request) => !isSuccess(request));
    const unlike503 = notOk.filter(({ outcome }) => outcome.kind !== 'answered' || outcome.status !== 503 || !/^[1-9][0-9]*$/.test(String(outcome.headers['retry-after'])));
    const lateFailures = notOk.filter(({ sentAt }) => sentAt > backAt + RECOVERY_MS);
    const firstOkAfterBack = sent.filter((request) => request.answeredAt >= backAt && isSuccess(request)).reduce((first, { answeredAt }) => Math.min(first, answeredAt), Infinity);
    const lost = await lostOf(sent);
    figures.postgresRestart = {
      ...figuresOf(sent),
      awayMs: Math.round(backAt - stoppingAt),
      firstOkAfterBackMs: Math.round(firstOkAfterBack - backAt),
      lastNotOkAfterBackMs: Math.round(notOk.reduce((last, { answeredAt }) => Math.max(last, answeredAt - backAt), -1)),
      acknowledgedLost: lost.length,
      noLiveUpstreams: noLiveUpstreams(),
    };
    console.log(`PostgreSQL restart through nginx: ${JSON.stringify(figures.postgresRestart)}`);
    expect(unlike503.map(({ outcome }) => (outcome.kind === 'answered' ? outcome.status : outcome.code))).toEqual([]);
    expect(notOk.length).toBeGreaterThan(0);
    expect(lateFailures).toEqual([]);
    expect(firstOkAfterBack - backAt).toBeLessThan(RECOVERY_MS);
    expect(lost).toEqual([]);
  }, 90_000);

  it('answers no 5xx while Redis restarts, each instance counting on its own meanwhile', async () => {
    const load = keepAliveLoad({ url: nginx.url, apiKey, clients: CLIENTS, run: 'redis', ...LOAD_BOUNDS });
    let degraded: Awaited<ReturnType<typeof readiness>>[];
    try {
      await sleep(STEADY_MS);
      await redis.kill();
      await until(async () => (await readiness(0)).body.degraded?.includes('redis') === true, 'degraded');
      degraded = await Promise.all([0, 1].map(readiness));
      await sleep(AWAY_MS);
      await redis.restart();
      await until(async () => (await Promise.all([0, 1].map(readiness))).every(({ body }) => body.degraded?.length === 0), 'back on Redis');
      await sleep(STEADY_MS);
    } finally {
      await load.finish();
    }
    const { sent } = load;
    const notOk = sent.filter((request) => !isSuccess(request));
    figures.redisRestart = { ...figuresOf(sent), readinessWhileAway: degraded, noLiveUpstreams: noLiveUpstreams() };
    console.log(`Redis restart through nginx: ${JSON.stringify(figures.redisRestart)}`);
    expect(degraded.map(({ status }) => status)).toEqual([200, 200]);
    expect(notOk.map(({ outcome }) => (outcome.kind === 'answered' ? outcome.status : outcome.code))).toEqual([]);
  }, 60_000);
});
