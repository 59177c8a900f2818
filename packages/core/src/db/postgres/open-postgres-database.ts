import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import type { Database } from '../../storage/database.js';
import { type StatementObserver, observePostgresStatements } from '../statement-observer.js';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../../storage/timeouts.js';
import { createPostgresApiKeyRecords } from './api-key-records.js';
import { createPostgresPetRecords } from './pet-records.js';
import { openPipelinedReads } from './pipelined-reads.js';
import { endStalledConnections } from './stalled-connections.js';
import * as schema from './schema.js';

const MIGRATIONS = fileURLToPath(new URL('../../../drizzle/postgres', import.meta.url));

/** How much longer than the server's statement_timeout a connection in use may stay silent. */
const STALL_MARGIN_MS = 1_000;

/** Any constant works; it only has to be the same in every instance of the service. */
const MIGRATION_LOCK = 7_046_233_001;

/**
 * int8 columns (ids) as JavaScript numbers: the service never hands out more than 2^53 - 1 of them.
 * Set on the pool's connections rather than on each statement: pg copies a statement's whole
 * config on every run, and the copy costs more with every property it has (docs/decisions).
 * Drizzle's own statements carry their own parsers and are not affected.
 */
const INT8_AS_NUMBER = new pg.TypeOverrides();
INT8_AS_NUMBER.setTypeParser(pg.types.builtins.INT8, Number);


export interface PostgresOptions {
  /** Connections per instance. */
  poolSize?: number;
  /**
   * Told when an idle connection breaks (the server restarted or closed it); the pool opens a new
   * one when next needed. Without a listener, Node would end the process on that error.
   */
  onConnectionError?: (error: Error) => void;
  /** Told of every statement the service sends (tracing); unset: nothing is wrapped. */
  onStatement?: StatementObserver | undefined;
  timeouts?: DatabaseTimeouts;
}

/**
 * Connects a pool to `url` (writes, transactions, everything but the reads on the request path,
 * which share pipelined connections of their own: pipelined-reads.ts) and brings the database to
 * the latest migration. Several instances starting at once each take a session advisory lock
 * first, so exactly one migrates and the others find the work done.
 */
export const openPostgresDatabase = async (
  url: string,
  { poolSize = 10, onConnectionError = () => undefined, timeouts = DEFAULT_DATABASE_TIMEOUTS, onStatement }: PostgresOptions = {},
): Promise<Database> => {
  // Bounded waits: for a connection (an unreachable server or a drained pool fails the request and
  // /readyz instead of holding them open forever, pg's default), and for each statement, on the
  // server (statement_timeout) and, should the network itself stall, in the client (a connection
  // in use that stays silent a little longer, so that the server's own cancellation comes first).
  const connections: pg.ClientConfig = {
    connectionString: url,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    types: INT8_AS_NUMBER,
  };
  const silentMs = timeouts.statementMs + STALL_MARGIN_MS;
  const pool = new pg.Pool({ ...connections, max: poolSize });
  endStalledConnections(pool, silentMs);
  pool.on('error', onConnectionError);
  // A connection that breaks while checked out between two statements (inside a transaction, say)
  // would emit an error nobody listens to, which ends the process; its statement fails instead.
  pool.on('connect', (client) => client.on('error', onConnectionError));
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await migrate(drizzle({ client, schema }), { migrationsFolder: MIGRATIONS });
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } catch (error) {
    client.release();
    await pool.end();
    throw error;
  }
  client.release();
  const reads = openPipelinedReads({ config: connections, silentMs, onConnectionError });
  if (onStatement) observePostgresStatements(pool, onStatement, reads);

  const db = drizzle({ client: pool, schema });
  return {
    pets: createPostgresPetRecords(db, reads),
    apiKeys: createPostgresApiKeyRecords(db),
    ping: async () => {
      await pool.query('select 1');
    },
    close: async () => {
      if (pool.ended) return;
      // pool.end() waits for every checked-out client; one that a broken connection left checked
      // out would hold a shutdown forever. It waits at most what a query may take.
      const bound = timeouts.connectMs + timeouts.statementMs + STALL_MARGIN_MS;
      await Promise.race([Promise.all([pool.end(), reads.close()]), sleep(bound, undefined, { ref: false })]);
    },
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
};
