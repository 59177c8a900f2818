import { type ApiKeys, type Database, createApiKeys, openDatabase } from '@petstore/core';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { type Quota, createQuota } from './admission/quota.js';

/** Everything the service keeps outside a request: the database, and what instances share. */
export interface ServiceState {
  db: Database;
  apiKeys: ApiKeys;
  /** Requests per API key; undefined when rate limiting is off. */
  keyQuota: Quota | undefined;
  /** Failed authentications per client address; undefined when off. */
  failedAuthQuota: Quota | undefined;
  /** Resolves when every store answers (readiness). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * PostgreSQL when DATABASE_URL is set, the SQLite file otherwise; with REDIS_URL, rate limits
 * live in Redis so every instance counts together. Idempotency records are always in the
 * database, written in the transaction that inserts the animal.
 */
export const openState = async (config: Config, logger: Logger): Promise<ServiceState> => {
  const db = await openDatabase({
    url: config.databaseUrl,
    sqliteFile: config.databaseFile,
    onConnectionError: (error) => {
      logger.warn({ err: error }, 'an idle database connection broke; a new one will be opened');
    },
  });
  let redis: Redis | undefined;
  if (config.redisUrl) {
    redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
    redis.on('error', (error: Error) => {
      logger.warn({ err: error }, 'redis connection error');
    });
    try {
      // Fail at start-up, not on the first request, when Redis cannot be reached.
      await redis.connect();
    } catch (error) {
      redis.disconnect();
      await db.close();
      throw error;
    }
  }
  return {
    db,
    apiKeys: createApiKeys(db.apiKeys),
    keyQuota: createQuota({ name: 'per-key', perMinute: config.rateLimitPerMinute, redis, keyPrefix: `${config.redisKeyPrefix}rate` }),
    failedAuthQuota: createQuota({
      name: 'per-address',
      perMinute: config.authFailuresPerMinute,
      redis,
      keyPrefix: `${config.redisKeyPrefix}auth-failures`,
    }),
    ready: async () => {
      await db.ping();
      if (redis) await redis.ping();
    },
    close: async () => {
      await db.close();
      await redis?.quit();
    },
  };
};
