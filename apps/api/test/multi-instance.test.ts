import type { Pet } from '@petstore/core';
import { afterAll, describe, expect } from 'vitest';
import { type TestStorage, it, nextPageLink } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';
import { collect, spawnEntry } from './support/processes.js';
import { type ServiceInstance, startInstance } from './support/service-instance.js';

// Two service processes on one PostgreSQL and one Redis, as behind a load balancer.
// (This file runs in the PostgreSQL project only; see vitest.config.ts.)
const LIMIT_PER_MINUTE = 200;
/** How long each instance holds a key it authenticated before reading its row again. */
const KEY_HOLD_MS = 300;

let instances: ServiceInstance[];
let key: string;

const startOne = (storage: TestStorage) =>
  startInstance({ RATE_LIMIT_PER_MINUTE: String(LIMIT_PER_MINUTE), API_KEY_CACHE_MS: String(KEY_HOLD_MS), ...storage.env });

const keysCli = (storage: TestStorage, ...args: string[]) => collect(spawnEntry('src/cli/keys.ts', args, storage.env));
const on = (index: number, apiKey = key) => ({ url: instances[index % instances.length]?.url ?? '', apiKey });
const figures: Record<string, number> = {};

it.beforeAll(async ({ storage }) => {
  // Started together on an empty database: migrations run once, and one of them creates the key.
  instances = await Promise.all([startOne(storage), startOne(storage)]);
  const printed = instances.map((instance) => instance.printedKey).filter((printedKey) => printedKey !== undefined);
  expect(printed).toHaveLength(1);
  key = printed[0] ?? '';
}, 60_000);

afterAll(async () => {
  const codes = await Promise.all(instances.map((instance) => instance.stop()));
  expect(codes).toEqual([0, 0]);
  console.log(`multi-instance: ${JSON.stringify(figures)}`);
});

describe('two instances on one PostgreSQL and one Redis', () => {
  it('give unique ids to animals created on both at once', async () => {
    const created = await Promise.all(
      Array.from({ length: 100 }, async (_, index) => {
        const response = await call(on(index), '/v1/pets', { method: 'POST', json: { name: `shared ${index}`, categoryId: 1 } });
        return ((await response.json()) as Pet).id;
      }),
    );
    expect(new Set(created).size).toBe(100);
    figures.createdOnBoth = created.length;
  });

  it('walk the pages alternately, with inserts on both meanwhile, without a gap or a repeat', async () => {
    const before = ((await (await call(on(0), '/v1/pets?limit=100')).json()) as Pet[]).map((pet) => pet.id);
    const added: number[] = [];
    const seen: number[] = [];
    let next: string | undefined = '/v1/pets?limit=7';
    for (let page = 0; next; page++) {
      const response = await call(on(page), next);
      seen.push(...((await response.json()) as Pet[]).map((pet) => pet.id));
      next = nextPageLink(response);
      const insert = await call(on(page + 1), '/v1/pets', { method: 'POST', json: { name: `during ${page}`, categoryId: 2 } });
      added.push(((await insert.json()) as Pet).id);
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    for (const id of [...before, ...added.slice(0, -1)]) expect(seen).toContain(id);
    figures.walkedPages = Math.ceil(seen.length / 7);
    figures.walkedAnimals = seen.length;
  });

  it('refuse, on both, a key revoked by the CLI once their hold of it ends', async ({ storage }) => {
    const created = await keysCli(storage, 'create', 'short-lived');
    const shortLived = created.stdout.trimEnd().split('\n').at(-1) ?? '';
    expect((await call(on(0, shortLived), '/v1/pets')).status).toBe(200);
    expect((await call(on(1, shortLived), '/v1/pets')).status).toBe(200);
    expect((await keysCli(storage, 'revoke', 'short-lived')).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, KEY_HOLD_MS + 50));
    await expectError(await call(on(0, shortLived), '/v1/pets'), 401, 'UNAUTHORIZED');
    await expectError(await call(on(1, shortLived), '/v1/pets'), 401, 'UNAUTHORIZED');
  });

  it('enforce one rate limit across both', async ({ storage }) => {
    const created = await keysCli(storage, 'create', 'metered');
    const metered = created.stdout.trimEnd().split('\n').at(-1) ?? '';
    const statuses: number[] = [];
    for (let request = 0; request < LIMIT_PER_MINUTE + 2; request++) {
      statuses.push((await call(on(request, metered), '/v1/pets?limit=1')).status);
    }
    expect(statuses.slice(0, LIMIT_PER_MINUTE).every((status) => status === 200)).toBe(true);
    expect(statuses.slice(LIMIT_PER_MINUTE)).toEqual([429, 429]);
    figures.acceptedBeforeLimit = statuses.filter((status) => status === 200).length;
  });
});

describe('two instances on one PostgreSQL without Redis', () => {
  it('refuse a key revoked by the CLI once their hold of it ends, as with Redis', async ({ storage }) => {
    const withoutRedis = Object.fromEntries(Object.entries(storage.env).filter(([name]) => !name.startsWith('REDIS_')));
    const pair = await Promise.all([0, 1].map(() => startInstance({ API_KEY_CACHE_MS: String(KEY_HOLD_MS), ...withoutRedis })));
    try {
      const created = await keysCli(storage, 'create', 'unshared');
      const unshared = created.stdout.trimEnd().split('\n').at(-1) ?? '';
      for (const instance of pair) expect((await call({ url: instance.url, apiKey: unshared }, '/v1/pets')).status).toBe(200);
      expect((await keysCli(storage, 'revoke', 'unshared')).code).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, KEY_HOLD_MS + 50));
      for (const instance of pair) await expectError(await call({ url: instance.url, apiKey: unshared }, '/v1/pets'), 401, 'UNAUTHORIZED');
    } finally {
      expect(await Promise.all(pair.map((instance) => instance.stop()))).toEqual([0, 0]);
    }
  });
});

