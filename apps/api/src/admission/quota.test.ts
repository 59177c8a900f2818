import { setTimeout as sleep } from 'node:timers/promises';
import { TEST_REDIS_URL, createScratchRedisPrefix } from '@petstore/core/testing';
import { Redis } from 'ioredis';
import { describe, expect, it as base } from 'vitest';
import { QUOTA_SYNC_MS, type Quota, type QuotaDecision, createQuota } from './quota.js';

const remaining = (headers: (string | number)[]) => Number(/;r=(\d+)/.exec(String(headers[headers.indexOf('RateLimit') + 1]))?.[1]);

/** A Redis connection and a prefix of this test's own, both gone when it ends; the quotas made on them too. */
// eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
const it = base.extend('shared', async ({}, { onCleanup }) => {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true });
  // Connected first, as the service's is: while it is not, the quota counts in the process.
  await redis.connect();
  const scratch = createScratchRedisPrefix();
  const quotas: Quota[] = [];
  onCleanup(async () => {
    for (const quota of quotas) quota.close();
    await scratch.drop();
    redis.disconnect();
  });
  const quota = (perMinute: number) => {
    const made = createQuota({ name: 'per-key', perMinute, redis, keyPrefix: `${scratch.prefix}rate` });
    if (!made) throw new Error('a quota of 0 is off');
    quotas.push(made);
    return made;
  };
  /** What Redis holds for a subject: the count every instance shares. */
  const sharedCount = async (subject: string) => Number((await redis.get(`${scratch.prefix}rate:${subject}`)) ?? 0);
  return { quota, sharedCount };
});

describe('a quota in one process', () => {
  it('allows exactly perMinute, then refuses with the seconds to wait', async () => {
    const quota = createQuota({ name: 'per-key', perMinute: 3, keyPrefix: 'unused' });
    if (!quota) throw new Error('a quota of 3 is on');
    const decisions: QuotaDecision[] = [];
    for (let request = 0; request < 5; request++) decisions.push(await quota.spend('k', 1));
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, false, false]);
    expect(decisions[3]?.retryAfterSeconds).toBeGreaterThan(0);
    expect(quota.peek('k').headers).toContain('"per-key";r=0;t=60');
    quota.close();
  });
});

describe('a quota shared through Redis', () => {
  it('spends in the process while far from the limit, and adds it to Redis at the next sync', async ({ shared: { quota, sharedCount } }) => {
    const perKey = quota(1_000);
    for (let request = 0; request < 20; request++) expect((await perKey.spend('busy', 1)).allowed).toBe(true);
    // The first request learned the shared count (one round trip); the other 19 stayed here.
    expect(await sharedCount('busy')).toBe(1);
    await sleep(3 * QUOTA_SYNC_MS);
    expect(await sharedCount('busy')).toBe(20);
  });

  it('never lets two instances together past the limit', async ({ shared: { quota, sharedCount } }) => {
    const instances = [quota(50), quota(50)];
    const allowed: boolean[] = [];
    for (let request = 0; request < 70; request++) allowed.push((await (instances[request % 2] as Quota).spend('shared', 1)).allowed);
    expect(allowed.filter(Boolean)).toHaveLength(50);
    expect(allowed.slice(50)).toEqual(Array.from({ length: 20 }, () => false));
    expect(await sharedCount('shared')).toBeGreaterThanOrEqual(50);
    // Past half its quota every request is counted in Redis, so the header says where the key stands.
    expect(remaining((await (instances[0] as Quota).spend('shared', 1)).headers)).toBe(0);
  });

  it('counts what it has sent to Redis until Redis answers, so the header never shows more than is left', async ({ shared: { quota } }) => {
    const perKey = quota(10);
    // Past half the quota: the next spend goes to Redis.
    await perKey.spend('sending', 6);
    const inFlight = perKey.spend('sending', 1);
    // Asked while that spend waits on Redis: it is already counted.
    expect(remaining(perKey.peek('sending').headers)).toBe(3);
    expect(remaining((await inFlight).headers)).toBe(3);
  });
});
