import { afterAll, describe, expect } from 'vitest';
import { QUOTA_SYNC_MS } from '../src/admission/quota.js';
import { type TestStorage, it } from '../src/testing/index.js';
import { postJson } from './support/http.js';
import { collect, spawnEntry } from './support/processes.js';
import { type OwnRedis, startOwnRedis } from './support/redis-server.js';
import { type ServiceInstance, Tally, startInstance } from './support/service-instance.js';

// Two instances on one PostgreSQL and a Redis of the test's own, which the test kills mid-traffic
// and starts again. (A multi-instance file: it runs in the PostgreSQL project only.)
const LIMIT_PER_MINUTE = 40;
/**
 * Redis's bound here: above the default 50 ms, so that a busy shared machine does not make a
 * command that Redis answers time out (and count in the instance) while the test checks shared counts.
 */
const REDIS_TIMEOUT_MS = 500;
/**
 * What a request may take while Redis is away: it waits for Redis once at most, and the rest of it
 * takes milliseconds, or a few hundred on a machine whose cores are busy with other work. Waiting
 * twice, or for the 10 s it once took, is past it.
 */
const SLOWEST_ALLOWED_MS = 2 * REDIS_TIMEOUT_MS;

let redis: OwnRedis;
let instances: ServiceInstance[];
const figures: Record<string, unknown> = { redisTimeoutMs: REDIS_TIMEOUT_MS };

const newKey = async (storage: TestStorage, name: string) => {
  const created = await collect(spawnEntry('src/cli/keys.ts', ['create', name], storage.env));
  return created.stdout.trimEnd().split('\n').at(-1) ?? '';
};
const get = (instance: ServiceInstance, key: string, path = '/v1/pets?limit=1') =>
  fetch(`${instance.url}${path}`, { headers: { Authorization: `Bearer ${key}` } });
const remaining = (response: Response) => Number(/;r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1]);
const readiness = async (instance: ServiceInstance) => {
  const response = await fetch(`${instance.url}/readyz`);
  return { status: response.status, body: await response.json() };
};
const until = async (check: () => Promise<boolean>, what: string) => {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still not ${what} after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};
/** Long enough for an instance to have added what it counted to the shared count. */
const oneSync = () => new Promise((resolve) => setTimeout(resolve, 3 * QUOTA_SYNC_MS));
const warnings = (instance: ServiceInstance, pattern: RegExp) =>
  instance.output().split('\n').filter((line) => line.includes('"level":40') && pattern.test(line)).length;

it.beforeAll(async ({ storage }) => {
  redis = await startOwnRedis();
  const env = { ...storage.env, REDIS_URL: redis.url, REDIS_TIMEOUT_MS: String(REDIS_TIMEOUT_MS), RATE_LIMIT_PER_MINUTE: String(LIMIT_PER_MINUTE) };
  instances = [await startInstance(env)];
  instances.push(await startInstance(env));
}, 60_000);

afterAll(async () => {
  const codes = await Promise.all(instances.map((instance) => instance.stop()));
  await redis.kill();
  expect(codes).toEqual([0, 0]);
  console.log(`redis outage: ${JSON.stringify(figures)}`);
});

describe('when Redis stops under two running instances', () => {
  it('count one shared limit while Redis answers', async ({ storage }) => {
    const [first, second] = instances as [ServiceInstance, ServiceInstance];
    const key = await newKey(storage, 'shared-before');
    for (let request = 0; request < 5; request++) expect((await get(first, key)).status).toBe(200);
    await oneSync();
    expect(remaining(await get(second, key))).toBe(LIMIT_PER_MINUTE - 6);
    expect(await readiness(first)).toEqual({ status: 200, body: { status: 'ok', degraded: [] } });
  });

  it('answer within the bound while Redis hangs without closing its connections', async ({ storage }) => {
    const [first] = instances as [ServiceInstance];
    const key = await newKey(storage, 'while-hung');
    const tally = new Tally();
    redis.pause();
    try {
      for (let request = 0; request < 5; request++) expect((await tally.time(() => get(first, key))).response.status).toBe(200);
    } finally {
      redis.resume();
    }
    figures.whileHung = { statuses: tally.statuses, slowestMs: tally.slowestMs };
    // Each request waited for Redis once, at most its bound, then counted in the instance.
    expect(tally.slowestMs).toBeGreaterThanOrEqual(REDIS_TIMEOUT_MS);
    expect(tally.slowestMs).toBeLessThan(SLOWEST_ALLOWED_MS);
  });

  it('serve every request, within the bound, counting each instance on its own', async ({ storage }) => {
    const [first, second] = instances as [ServiceInstance, ServiceInstance];
    const busy = await newKey(storage, 'busy');
    const metered = await newKey(storage, 'metered');
    const tally = new Tally();
    let traffic = true;
    // Traffic on both instances while Redis is killed under it.
    const load = Promise.all(
      instances.map(async (instance) => {
        while (traffic) await tally.time(() => get(instance, busy, '/v1/pets?limit=5'));
      }),
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await redis.kill();
      await until(async () => (await readiness(first)).status === 200 && JSON.stringify((await readiness(first)).body).includes('redis'), 'degraded');
      expect(await readiness(first)).toEqual({ status: 200, body: { status: 'ok', degraded: ['redis'] } });
      expect(await readiness(second)).toEqual({ status: 200, body: { status: 'ok', degraded: ['redis'] } });

      // Each instance enforces the limit alone: a key gets its quota on the first, then 429 there,
      // and the second, counting on its own, still serves it.
      const onFirst: number[] = [];
      for (let request = 0; request < LIMIT_PER_MINUTE + 1; request++) onFirst.push((await tally.time(() => get(first, metered))).response.status);
      expect(onFirst.slice(0, LIMIT_PER_MINUTE).every((status) => status === 200)).toBe(true);
      expect(onFirst.at(-1)).toBe(429);
      const secondAnswer = (await tally.time(() => get(second, metered))).response;
      expect(secondAnswer.status).toBe(200);
      expect(remaining(secondAnswer)).toBe(LIMIT_PER_MINUTE - 1);

      // Writes too.
      const writer = await newKey(storage, 'writer');
      const created = await tally.time(() => postJson(`${first.url}/v1/pets`, writer, { name: 'Rex', categoryId: 1 }));
      expect(created.response.status).toBe(201);
    } finally {
      traffic = false;
      await load;
    }
    figures.duringOutage = { statuses: tally.statuses, slowestMs: tally.slowestMs };
    expect(tally.serverErrors).toBe(0);
    expect(tally.slowestMs).toBeLessThan(SLOWEST_ALLOWED_MS);
    // One warning per instance marks the change, however many requests were served meanwhile.
    for (const instance of instances) expect(warnings(instance, /redis is not answering/)).toBe(1);
  });

  it('share the limit again once Redis is back', async ({ storage }) => {
    const [first, second] = instances as [ServiceInstance, ServiceInstance];
    await redis.restart();
    for (const instance of instances) {
      await until(async () => JSON.stringify((await readiness(instance)).body) === JSON.stringify({ status: 'ok', degraded: [] }), 'ready again');
    }
    const key = await newKey(storage, 'shared-after');
    for (let request = 0; request < 5; request++) expect((await get(first, key)).status).toBe(200);
    await oneSync();
    expect(remaining(await get(second, key))).toBe(LIMIT_PER_MINUTE - 6);
    for (const instance of instances) expect(warnings(instance, /redis answers again/)).toBe(1);
  });
});
