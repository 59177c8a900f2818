export { TEST_POSTGRES_URL, createScratchPostgresDatabase, type ScratchDatabase } from './scratch-postgres.js';
export { TEST_REDIS_URL, createScratchRedisPrefix, type ScratchRedisPrefix } from './scratch-redis.js';
export { type ExternalNeed, isSqliteElsewhere, isSqliteOnlyRun, keptWith, leftOutWithout, refuseWithout, skipWithout } from './sqlite-only.js';
export { ENGINES, type Engine, type OpenedDatabase } from './engines.js';
export { it, test, testOn } from './fixtures.js';
export { seedSqliteStore } from './seed-sqlite-store.js';
export { type PgBouncerPoolMode, type RunningPgBouncer, startPgBouncer } from './pgbouncer.js';
export { acceptsConnections } from './accepts-connections.js';
