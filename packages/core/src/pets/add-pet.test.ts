import { randomBytes } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../db/database.js';
import type { IdempotencyLedger } from '../idempotency/ledger.js';
import { createRedisIdempotencyLedger } from '../idempotency/redis-ledger.js';
import type { NewPet } from '../schemas/pet.js';
import { ENGINES, type OpenedDatabase } from '../testing/engines.js';
import { TEST_REDIS_URL, createScratchRedisPrefix } from '../testing/scratch-redis.js';
import { IDEMPOTENCY_WINDOW_MS, addPet } from './add-pet.js';

const rex: NewPet = { name: 'Rex', categoryId: 1, status: 'available' };
const start = new Date('2030-01-01T00:00:00Z');

const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true });
const scratchRedis = createScratchRedisPrefix();
afterAll(async () => {
  await scratchRedis.drop();
  await redis.quit();
});
const ownPrefix = () => `${scratchRedis.prefix}${randomBytes(6).toString('hex')}:`;

// Idempotency records in the database's own transaction, or in Redis for several instances.
const VARIANTS = ENGINES.flatMap((engine) => [
  { name: `${engine.name}, records in the database`, engine, ledger: () => undefined },
  {
    name: `${engine.name}, records in Redis`,
    engine,
    // A prefix of its own per test: runs and tests never see each other's records.
    ledger: (): IdempotencyLedger => createRedisIdempotencyLedger(redis, ownPrefix()),
  },
]);

describe.each(VARIANTS)('addPet on $name', ({ engine, ledger: ledgerFor }) => {
  let opened: OpenedDatabase;
  let db: Database;
  let ledger: IdempotencyLedger | undefined;
  beforeEach(async () => {
    opened = await engine.open();
    db = opened.db;
    ledger = ledgerFor();
  });
  afterEach(() => opened.dispose());

  const count = async () => (await db.pets.page({ afterId: 0, take: 1000 })).length;
  const add = (pet: NewPet, idempotencyKey?: string, apiKeyId = 1, now = start) =>
    addPet(db.pets, { pet, apiKeyId, idempotencyKey, now, ledger });

  beforeEach(async () => {
    // Idempotency records belong to API keys, which must exist.
    for (const name of ['one', 'two']) {
      await db.apiKeys.insert({ name, publicId: name.padEnd(12, '0'), secretHash: '00', createdAt: start, expiresAt: null });
    }
  });

  it('adds an animal each time when there is no key', async () => {
    await add(rex);
    await add(rex);
    expect(await count()).toBe(2);
  });

  it('adds once per key and replays the first result', async () => {
    const first = await add(rex, 'key-1');
    const retry = await add(rex, 'key-1');
    expect(first).toEqual({ pet: expect.objectContaining({ name: 'Rex' }), replayed: false });
    expect(retry).toEqual({ pet: first.pet, replayed: true });
    expect(await count()).toBe(1);
  });

  it('refuses the same key with another body and adds nothing', async () => {
    await add(rex, 'key-1');
    const error = await add({ ...rex, name: 'Tom' }, 'key-1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCError);
    expect((error as TRPCError).code).toBe('BAD_REQUEST');
    expect(await count()).toBe(1);
  });

  it('keeps keys apart per API key', async () => {
    await add(rex, 'shared', 1);
    expect((await add(rex, 'shared', 2)).replayed).toBe(false);
    expect(await count()).toBe(2);
  });

  it.skipIf(ledgerFor() !== undefined)('forgets a key after 24 hours (the database window)', async () => {
    await add(rex, 'key-1');
    const later = new Date(start.getTime() + IDEMPOTENCY_WINDOW_MS + 1);
    const tom = { ...rex, name: 'Tom' };
    expect((await add(tom, 'key-1', 1, later)).replayed).toBe(false);
    expect((await add(tom, 'key-1', 1, later)).replayed).toBe(true);
    expect(await count()).toBe(2);
  });

  it('creates exactly once among concurrent requests with the same key', async () => {
    const results = await Promise.all(Array.from({ length: 25 }, () => add(rex, 'race')));
    expect(results.filter((result) => !result.replayed)).toHaveLength(1);
    expect(new Set(results.map((result) => result.pet.id)).size).toBe(1);
    expect(await count()).toBe(1);
  });

  it.runIf(ledgerFor() !== undefined)('keeps a Redis record for 24 hours', async () => {
    const prefix = ownPrefix();
    const own = createRedisIdempotencyLedger(redis, prefix);
    await addPet(db.pets, { pet: rex, apiKeyId: 1, idempotencyKey: 'ttl-check', now: start, ledger: own });
    const ttl = await redis.pttl(`${prefix}1:ttl-check`);
    expect(ttl).toBeGreaterThan(IDEMPOTENCY_WINDOW_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(IDEMPOTENCY_WINDOW_MS);
  });

  it.each(['', 'has space', 'ünïcode', 'x'.repeat(256)])('refuses the key %j', async (key) => {
    await expect(add(rex, key)).rejects.toThrow(/Idempotency-Key must be/);
    expect(await count()).toBe(0);
  });
});
