import type { IdempotencyLedger, LedgerEntry } from './ledger.js';

/** The Redis commands the ledger uses; an ioredis client has them. */
export interface RedisCommands {
  set(key: string, value: string, px: 'PX', milliseconds: number, nx?: 'NX'): Promise<'OK' | null>;
  get(key: string): Promise<string | null>;
  del(key: string): Promise<number>;
}


const parse = (text: string | null): LedgerEntry | undefined =>
  text === null ? undefined : (JSON.parse(text) as LedgerEntry);

/**
 * Idempotency records in Redis, shared by every instance; each expires on its own. `prefix` keeps
 * one deployment's (or one test's) records apart from another's on the same Redis.
 */
export const createRedisIdempotencyLedger = (redis: RedisCommands, prefix = 'petstore:idempotency:'): IdempotencyLedger => {
  const ledger: IdempotencyLedger = {
    claim: async (id, fingerprint, pendingForMs) => {
      // SET … NX is the atomic step: of concurrent requests, on any instance, one gets OK.
      if ((await redis.set(prefix + id, JSON.stringify({ fingerprint }), 'PX', pendingForMs, 'NX')) === 'OK') return undefined;
      const holder = await ledger.read(id);
      // It expired between the two commands: try once more.
      return holder ?? ledger.claim(id, fingerprint, pendingForMs);
    },
    settle: async (id, entry, keepForMs) => {
      await redis.set(prefix + id, JSON.stringify(entry), 'PX', keepForMs);
    },
    release: async (id) => {
      await redis.del(prefix + id);
    },
    read: async (id) => parse(await redis.get(prefix + id)),
  };
  return ledger;
};
