import { type ApiKeys, type Database, type IdempotencyLedger, createApiKeys, createRedisIdempotencyLedger, openDatabase } from '@petstore/core';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { type Quota, createQuota } from './http/rate-limit.js';

/** Everything the service keeps outside a request: the database, and what instances share. */
export interface ServiceState {
  db: Database;
  apiKeys: ApiKeys;
  /** Requests per API key; undefined when rate limiting is off. */
  quota: Quota | undefined;
  /** Idempotency records in Redis; undefined: in the database. */
  ledger: IdempotencyLedger | undefined;
  /** Resolves when every store answers (readiness). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * PostgreSQL when DATABASE_URL is set, the SQLite file otherwise; with REDIS_URL, rate limits
 * and idempotency records live in Redis so every instance sees the same ones.
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
    quota: createQuota(config.rateLimitPerMinute, redis, `${config.redisKeyPrefix}rate`),
    ledger: redis && createRedisIdempotencyLedger(redis, `${config.redisKeyPrefix}idempotency:`),
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
