import { type ApiKeys, type BudgetAtStart, type Database, type StatementObserver, createApiKeys, openDatabase, startIdempotencyPruning, storeFilesOpenToOthers, unavailableCause } from '@petstore/core';
import type { Logger } from 'pino';
import { type Config, variableOf } from '../settings/config.js';
import { ADDRESS_QUOTA, KEY_QUOTA, type Quota, createQuota } from '../admission/quota.js';
import { type SharedCounts, connectSharedCounts } from './shared-counts.js';

/** Readiness: the database answers; `degraded` names the stores the service is running without. */
export interface Readiness {
  degraded: string[];
}

/**
 * Everything the service keeps outside a request: the database, and the counts instances share.
 * While they are open, expired idempotency records are pruned in the background.
 */
export interface Stores {
  db: Database;
  apiKeys: ApiKeys;
  /** Requests per API key; undefined when rate limiting is off. */
  keyQuota: Quota | undefined;
  /** Failed authentications per client address; undefined when off. */
  failedAuthQuota: Quota | undefined;
  /** Resolves when the database answers, naming what runs degraded; rejects when it does not. */
  ready(): Promise<Readiness>;
  close(): Promise<void>;
}

/**
 * The line a start leaves when PostgreSQL refused some of the connections the instance may open:
 * what it refused, why in its own words, and the settings that size the budget. The instance
 * serves with what it has; a request that finds no connection in time gets 503.
 */
const logBudgetShort = (logger: Logger, config: Config, { wanted, refused }: BudgetAtStart) => {
  const [first] = refused;
  const cause = unavailableCause(first);
  const budget = `${variableOf('databasePoolSize')} ${String(config.databasePoolSize)} + ${variableOf('databaseReadConnections')} ${String(config.databaseReadConnections)}`;
  logger.warn(
    { wanted, refused: refused.length, cause: { code: cause?.code ?? (first as { code?: string } | undefined)?.code, message: cause?.message ?? String(first) } },
    cause?.why === 'out of connections'
      ? `PostgreSQL is out of connections: it refused ${String(refused.length)} of the ${String(wanted)} this instance may open (${budget}). Keep instances × ${String(wanted)} within what the database or its pooler allows (docs/operating.md, Connection budget)`
      : `PostgreSQL refused ${String(refused.length)} of the ${String(wanted)} connections this instance may open (${budget})`,
  );
};

/** A SQLite store made before its files were the service's user's alone, or loosened since: said once, at start. */
const warnOpenToOthers = (logger: Logger, file: string) => {
  const open = storeFilesOpenToOthers(file);
  if (open.length === 0) return;
  logger.warn(
    { files: open },
    `the SQLite store's files are open to other local users, who could read its key hashes and audit trail: chmod 600 ${open.map(({ path }) => path).join(' ')}`,
  );
};

/**
 * PostgreSQL when `config.databaseUrl` is set, the SQLite file otherwise; with `config.redisUrl`,
 * rate limits live in Redis so every instance counts together.
 */
export const openStores = async (config: Config, logger: Logger, onStatement?: StatementObserver): Promise<Stores> => {
  const db = await openDatabase({
    onStatement,
    url: config.databaseUrl,
    sqliteFile: config.databaseFile,
    timeouts: { connectMs: config.databaseConnectTimeoutMs, statementMs: config.databaseStatementTimeoutMs },
    connections: { pool: config.databasePoolSize, reads: config.databaseReadConnections },
    onBudgetShort: (found) => {
      logBudgetShort(logger, config, found);
    },
    onConnectionError: (error) => {
      logger.warn({ err: error }, 'an idle database connection broke; a new one will be opened');
    },
  });
  if (config.databaseUrl === undefined) warnOpenToOthers(logger, config.databaseFile);
  const pruning = startIdempotencyPruning(db.pets);
  // Redis is optional while running: without it each instance counts its own rate limits.
  const shared: SharedCounts | undefined = config.redisUrl
    ? await connectSharedCounts(config.redisUrl, config.redisTimeoutMs, logger)
    : undefined;
  const redis = shared?.client;
  const keyQuota = createQuota({ name: KEY_QUOTA, perMinute: config.rateLimitPerMinute, redis, keyPrefix: `${config.redisKeyPrefix}rate` });
  const failedAuthQuota = createQuota({
    name: ADDRESS_QUOTA,
    perMinute: config.authFailuresPerMinute,
    redis,
    keyPrefix: `${config.redisKeyPrefix}auth-failures`,
  });
  return {
    db,
    // Key creations, rotations, revocations and first uses after a rotation, as log lines too.
    apiKeys: createApiKeys(db.apiKeys, {
      holdMs: config.apiKeyCacheMs,
      audit: (entry) => {
        logger.info({ audit: entry }, `API key ${entry.event}`);
      },
    }),
    keyQuota,
    failedAuthQuota,
    ready: async () => {
      await db.ping();
      return { degraded: shared && !shared.available() ? ['redis'] : [] };
    },
    close: async () => {
      keyQuota?.close();
      failedAuthQuota?.close();
      await pruning.stop();
      await db.close();
      await shared?.close();
    },
  };
};
