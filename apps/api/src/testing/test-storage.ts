import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_POSTGRES_URL, TEST_REDIS_URL, createScratchPostgresDatabase, createScratchRedisPrefix, startPgBouncer } from '@petstore/core/testing';

/**
 * The engine the contract suite runs on: each vitest project sets its own (see vitest.config.ts).
 * On PostgreSQL the service also keeps its shared state in Redis, as several instances would.
 */
export const TEST_ENGINE: 'sqlite' | 'postgres' = process.env.PETSTORE_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/**
 * On PostgreSQL, the PgBouncer pool mode the service reaches it through, when a project sets one
 * (vitest.config.ts): each storage gets a PgBouncer of its own, as Debian ships it but for that.
 */
const POOLER = process.env.PETSTORE_TEST_POOLER === 'transaction' || process.env.PETSTORE_TEST_POOLER === 'session' ? process.env.PETSTORE_TEST_POOLER : undefined;

export interface TestStorage {
  /** The variables that point a server or a CLI at this storage. */
  env: Record<string, string>;
  /** Deletes the database, and on PostgreSQL what the service wrote to Redis. */
  dispose(): Promise<void>;
}

/** Fresh storage no other test or run can see: a temporary SQLite file, or a new database. */
export const createTestStorage = async (): Promise<TestStorage> => {
  if (TEST_ENGINE === 'postgres') {
    const scratch = await createScratchPostgresDatabase();
    const redis = createScratchRedisPrefix();
    const pooler = POOLER && (await startPgBouncer({ server: TEST_POSTGRES_URL, poolMode: POOLER }));
    return {
      env: {
        DATABASE_URL: pooler ? pooler.through(scratch.url) : scratch.url,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_KEY_PREFIX: redis.prefix,
        // A loaded machine can take more than the default 50 ms to answer; the instance's own count
        // would then answer instead, and the RateLimit headers tests read would follow it. The
        // outage tests set their own bound.
        REDIS_TIMEOUT_MS: '1000',
      },
      dispose: async () => {
        if (pooler) await pooler.stop();
        await scratch.drop();
        await redis.drop();
      },
    };
  }
  const folder = mkdtempSync(join(tmpdir(), 'petstore-test-'));
  return {
    env: { PETSTORE_DB: join(folder, 'petstore.db') },
    dispose: async () => {
      rmSync(folder, { recursive: true, force: true });
    },
  };
};
