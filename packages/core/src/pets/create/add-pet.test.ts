import { TRPCError } from '@trpc/server';
import { describe, expect } from 'vitest';
import type { NewPet } from '../pet.js';
import { ENGINES } from '../../testing/engines.js';
import { testOn } from '../../testing/fixtures.js';
import { addPet } from './add-pet.js';
import { IDEMPOTENCY_WINDOW_MS, idempotencyRecordsExpireBefore } from './idempotency.js';

const rex: NewPet = { name: 'Rex', categoryId: 1, status: 'available' };
const start = new Date('2030-01-01T00:00:00Z');
const second = 1_000;

describe.each(ENGINES)('addPet on $name', (engine) => {
  const it = testOn(engine)
    .extend('count', ({ db }) => async () => (await db.pets.page({ afterId: 0, take: 1000 })).length)
    .extend('add', ({ db }) => (pet: NewPet, idempotencyKey?: string, keyLineage = 'one'.padEnd(12, '0'), now = start) =>
      addPet(db.pets, { pet, keyLineage, idempotencyKey, now }));

  it.beforeEach(async ({ db }) => {
    // Idempotency records belong to what API keys stand for, their lineages.
    for (const name of ['one', 'two']) {
      await db.apiKeys.insert({ name, publicId: name.padEnd(12, '0'), secretHash: '00', createdAt: start, expiresAt: null, lineage: name.padEnd(12, '0') });
    }
  });

  it('adds an animal each time when there is no key', async ({ add, count }) => {
    await add(rex);
    await add(rex);
    expect(await count()).toBe(2);
  });

  it('adds once per key and replays the first result', async ({ add, count }) => {
    const first = await add(rex, 'key-1');
    const retry = await add(rex, 'key-1');
    expect(first).toEqual({ pet: expect.objectContaining({ name: 'Rex' }), replayed: false });
    expect(retry).toEqual({ pet: first.pet, replayed: true });
    expect(await count()).toBe(1);
  });

  it('refuses the same key with another body and adds nothing', async ({ add, count }) => {
    await add(rex, 'key-1');
    const error = await add({ ...rex, name: 'Tom' }, 'key-1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe('BAD_REQUEST');
    expect(await count()).toBe(1);
  });

  it('keeps keys apart per API key lineage', async ({ add, count }) => {
    await add(rex, 'shared', 'one'.padEnd(12, '0'));
    expect((await add(rex, 'shared', 'two'.padEnd(12, '0'))).replayed).toBe(false);
    expect(await count()).toBe(2);
  });

  it('keeps a key for 24 hours to the millisecond', async ({ add }) => {
    const first = await add(rex, 'key-1');
    const dayLater = new Date(start.getTime() + IDEMPOTENCY_WINDOW_MS);
    expect(await add(rex, 'key-1', undefined, dayLater)).toEqual({ pet: first.pet, replayed: true });
    await expect(add({ ...rex, name: 'Tom' }, 'key-1', undefined, dayLater)).rejects.toThrow(/different request body/);
  });

  it('ignores a record 24 hours and one second old, prunes it, and keeps younger ones', async ({ db, add, count }) => {
    await add(rex, 'old');
    await add(rex, 'stale');
    await add(rex, 'young', undefined, new Date(start.getTime() + 2 * second));
    const later = new Date(start.getTime() + IDEMPOTENCY_WINDOW_MS + second);

    // Not pruned yet, but no longer counted: another body under its key creates a new animal.
    const tom = { ...rex, name: 'Tom' };
    expect((await add(tom, 'stale', undefined, later)).replayed).toBe(false);
    expect((await add(tom, 'stale', undefined, later)).replayed).toBe(true);

    const expired = idempotencyRecordsExpireBefore(later);
    expect(await db.pets.deleteExpiredIdempotencyRecords(expired, 100)).toBe(1);
    expect(await db.pets.deleteExpiredIdempotencyRecords(expired, 100)).toBe(0);
    expect((await add(rex, 'young', undefined, later)).replayed).toBe(true);
    expect((await add(rex, 'old', undefined, later)).replayed).toBe(false);
    expect(await count()).toBe(5);
  });

  it('prunes expired records in batches of at most the limit', async ({ db, add }) => {
    for (let index = 0; index < 25; index++) await add(rex, `key-${index}`, undefined, new Date(start.getTime() + index * second));
    const before = new Date(start.getTime() + 20 * second);
    const batches = [];
    for (let batch = 0; batch < 4; batch++) batches.push(await db.pets.deleteExpiredIdempotencyRecords(before, 8));
    expect(batches).toEqual([8, 8, 4, 0]);
    // Made at or after `before`: kept.
    expect((await add(rex, 'key-20')).replayed).toBe(true);
    expect((await add(rex, 'key-19')).replayed).toBe(false);
  });

  it('creates exactly once among concurrent requests with the same key', async ({ add, count }) => {
    const results = await Promise.all(Array.from({ length: 25 }, () => add(rex, 'race')));
    expect(results.filter((result) => !result.replayed)).toHaveLength(1);
    expect(new Set(results.map((result) => result.pet.id)).size).toBe(1);
    expect(await count()).toBe(1);
  });

  it.for(['', 'has space', 'ünïcode', 'x'.repeat(256)])('refuses the key %j', async (key, { add, count }) => {
    await expect(add(rex, key)).rejects.toThrow(/Idempotency-Key must be/);
    expect(await count()).toBe(0);
  });
});
