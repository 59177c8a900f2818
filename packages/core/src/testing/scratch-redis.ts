import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { refuseWithout } from './sqlite-only.js';

/** The Redis server tests use; each run writes only under a prefix of its own. */
export const TEST_REDIS_URL = process.env.PETSTORE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface ScratchRedisPrefix {
  /** Starts every key written for this test, so no two runs or tests see each other's. */
  prefix: string;
  /** Deletes every key under the prefix: rate-limit counters would otherwise stay a minute. */
  drop(): Promise<void>;
}

export const createScratchRedisPrefix = (): ScratchRedisPrefix => {
  refuseWithout('Redis');
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  return {
    prefix,
    drop: async () => {
      const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
        for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 500 })) {
          const keys = batch as string[];
          if (keys.length > 0) await redis.unlink(...keys);
        }
      } finally {
        redis.disconnect();
      }
    },
  };
};
