import type { Pet } from '@petstore/core';
import { afterAll, describe, expect } from 'vitest';
import { it } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';
import {
  type Service,
  allPets,
  createUntilKilled,
  describeFigures,
  flushRedisPrefix,
  retry,
  retryAndCheck,
  startService,
} from './support/idempotent-creates.js';

// Two service processes on one PostgreSQL and one Redis, as behind a load balancer.
// (This file runs in the PostgreSQL project only; see vitest.config.ts.)
const CLIENTS = 32;
const KILL_AFTER_ACKS = 300;
const RACERS = 20;
// Rate limiting on, so every request goes through the Redis the tests flush.
const SETTINGS = { RATE_LIMIT_PER_MINUTE: '1000000' };

let instances: Service[];
let apiKey: string;
const on = (index: number) => ({ url: instances[index % instances.length]?.url ?? '', apiKey });

it.beforeAll(async ({ storage }) => {
  instances = await Promise.all([startService({ ...storage.env, ...SETTINGS }), startService({ ...storage.env, ...SETTINGS })]);
  apiKey = instances.map((instance) => instance.printedKey).find((key) => key !== undefined) ?? '';
}, 60_000);

afterAll(async () => {
  // The first instance is killed by the last test.
  expect(await instances[1]?.stop()).toBe(0);
});

describe('creates with one Idempotency-Key on two instances', () => {
  it(`store one animal from ${RACERS} identical requests racing on both, answering each 201`, async () => {
    const create = { name: 'Race', categoryId: 3 };
    const racing = await Promise.all(
      Array.from({ length: RACERS }, (_, index) =>
        call(on(index), '/v1/pets', { method: 'POST', json: create, headers: { 'Idempotency-Key': 'race' } }),
      ),
    );
    expect(racing.map((response) => response.status)).toEqual(Array.from({ length: RACERS }, () => 201));
    const pets = await Promise.all(racing.map(async (response) => (await response.json()) as Pet));
    expect(new Set(pets.map((pet) => JSON.stringify(pet))).size).toBe(1);
    const replayed = racing.map((response) => response.headers.get('idempotent-replayed'));
    expect(replayed.filter((header) => header === 'true')).toHaveLength(RACERS - 1);
    expect(replayed.filter((header) => header === null)).toHaveLength(1);
    expect((await allPets(on(0))).filter((pet) => pet.name === 'Race')).toEqual([pets[0]]);

    for (const index of [0, 1]) {
      const other = await call(on(index), '/v1/pets', { method: 'POST', json: { ...create, name: 'Other' }, headers: { 'Idempotency-Key': 'race' } });
      await expectError(other, 400, 'BAD_REQUEST');
    }
  });

  it('replay on either instance after Redis has lost everything', async ({ storage }) => {
    const create = { idempotencyKey: 'before-the-flush', body: { name: 'Kept', categoryId: 4, status: 'available' as const } };
    const [first] = await retry(on(0), [create]);
    expect(await flushRedisPrefix(storage.env)).toBeGreaterThan(0);
    const again = await Promise.all([retry(on(0), [create]), retry(on(1), [create])]);
    expect(again.flat().map(({ status, pet, replayed }) => ({ status, pet, replayed }))).toEqual([
      { status: 201, pet: first?.pet, replayed: true },
      { status: 201, pet: first?.pet, replayed: true },
    ]);
  });

  it('leave each key with exactly one animal when one is killed mid-load and the other gets the retries', async ({ storage }) => {
    const before = (await allPets(on(0))).length;
    const [victim, survivor] = instances;
    const load = await createUntilKilled({
      run: 'two-instances',
      urls: instances.map((instance) => instance.url),
      apiKey,
      clients: CLIENTS,
      killAfter: KILL_AFTER_ACKS,
      kill: async () => victim?.kill(),
      midway: () => flushRedisPrefix(storage.env),
    });
    expect(load.unanswered.length).toBeGreaterThan(0);
    await flushRedisPrefix(storage.env);

    const figures = await retryAndCheck({ url: survivor?.url ?? '', apiKey }, load, before);
    expect(figures.duplicates).toBe(0);
    console.log(`idempotency crash (postgres, two instances, retried on the other): ${describeFigures(figures)}`);
  }, 90_000);
});
