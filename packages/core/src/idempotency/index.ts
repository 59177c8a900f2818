export type { IdempotencyLedger, LedgerEntry } from './ledger.js';
export { createRedisIdempotencyLedger, type RedisCommands } from './redis-ledger.js';
