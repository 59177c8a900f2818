import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { Database } from '../../storage/database.js';
import { type ConnectionBudget, DEFAULT_CONNECTION_BUDGET } from '../../storage/connection-budget.js';
import { type StatementObserver, observePostgresStatements } from '../statement-observer.js';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../../storage/timeouts.js';
import { createPostgresApiKeyRecords } from './api-key-records.js';
import { migrate } from './migrate.js';
import { createPostgresPetRecords } from './pet-records.js';
import { openPipelinedReads } from './pipelined-reads.js';
import { holdStatementsTo } from './statement-deadline.js';
import { nameStatementsWhereKept } from './statement-names.js';
import * as schema from './schema.js';

const MIGRATIONS = fileURLToPath(new URL('../../../drizzle/postgres', import.meta.url));

/** How long after its cancel a statement may stay unanswered before the network counts as stalled. */
const STALL_MARGIN_MS = 1_000;

/**
 * int8 columns (ids) as JavaScript numbers: the service never hands out more than 2^53 - 1 of them.
 * Set on the pool's connections rather than on each statement: pg copies a statement's whole
 * config on every run, and the copy costs more with every property it has
 * (docs/decisions/2026-11-23-postgres-read-path.md).
 * Drizzle's own statements carry their own parsers and are not affected.
 */
const INT8_AS_NUMBER = new pg.TypeOverrides();
INT8_AS_NUMBER.setTypeParser(pg.types.builtins.INT8, Number);

/** What the start found of the connection budget: how many it asked for, and the refusals among them. */
export interface BudgetAtStart {
  wanted: number;
  refused: unknown[];
}

export interface PostgresOptions {
  /** Connections per instance: the pool's, and the pipelined reads' (0: the reads use the pool). */
  connections?: Partial<ConnectionBudget>;
  /**
   * Told when an idle connection breaks (the server restarted or closed it); the pool opens a new
   * one when next needed. Without a listener, Node would end the process on that error.
   */
  onConnectionError?: (error: Error) => void;
  /** Told of every statement the service sends (tracing); unset: nothing is wrapped. */
  onStatement?: StatementObserver | undefined;
  /**
   * Told once started, when some of the budget's connections, each opened once at the start, were
   * refused (the database out of connections, say); unset, they are not opened ahead of need.
   */
  onBudgetShort?: ((found: BudgetAtStart) => void) | undefined;
  timeouts?: DatabaseTimeouts;
}

/**
 * Opens each of the pool's connections once and closes it at once, so a budget the database cannot
 * meet is said at the start rather than found by requests, without holding slots that instances
 * starting beside this one need: the refusals.
 */
const refusedOfPool = async (pool: pg.Pool, size: number): Promise<unknown[]> => {
  const outcomes = await Promise.allSettled(Array.from({ length: size }, () => pool.connect()));
  for (const outcome of outcomes) if (outcome.status === 'fulfilled') outcome.value.release(true);
  return outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
};

/**
 * Connects a pool to `url` (writes, transactions; the reads too when they have no connections of
 * their own) and the pipelined reads (pipelined-reads.ts), and brings the database to the latest
 * migration (migrate.ts: one instance of several starting at once migrates). Nothing is sent that
 * a pooler refuses or loses between transactions: no startup parameter but the address's own, no
 * session lock, no session setting; the statement timeout is held from the client's side
 * (statement-deadline.ts); statements are named only on a connection that keeps them
 * (statement-names.ts).
 */
export const openPostgresDatabase = async (
  url: string,
  {
    connections: budget = {},
    onConnectionError = () => undefined,
    timeouts = DEFAULT_DATABASE_TIMEOUTS,
    onStatement,
    onBudgetShort,
  }: PostgresOptions = {},
): Promise<Database> => {
  const { pool: poolSize, reads: readConnections } = { ...DEFAULT_CONNECTION_BUDGET, ...budget };
  // Bounded waits: for a connection (an unreachable server or a drained pool fails the request and
  // /readyz instead of holding them open forever, pg's default), and for each statement.
  const connections: pg.ClientConfig = { connectionString: url, connectionTimeoutMillis: timeouts.connectMs, types: INT8_AS_NUMBER };
  const deadline = { statementMs: timeouts.statementMs, stallMarginMs: STALL_MARGIN_MS };
  // pg-pool awaits `onConnect` before a new connection is first lent, which @types/pg leaves out.
  const poolConfig: pg.PoolConfig & { onConnect(client: pg.ClientBase): Promise<void> } = {
    ...connections,
    max: poolSize,
    // Its statements' bound, then whether it names them.
    onConnect: (client) => {
      holdStatementsTo(client as pg.Client, deadline);
      return nameStatementsWhereKept(client as pg.Client);
    },
  };
  const pool = new pg.Pool(poolConfig);
  pool.on('error', onConnectionError);
  // A connection that breaks while checked out between two statements (inside a transaction, say)
  // would emit an error nobody listens to, which ends the process; its statement fails instead.
  pool.on('connect', (client) => client.on('error', onConnectionError));
  const client = await pool.connect();
  try {
    await migrate(client, MIGRATIONS);
  } catch (error) {
    client.release();
    await pool.end();
    throw error;
  }
  client.release();
  const reads = readConnections > 0 ? openPipelinedReads({ config: connections, connections: readConnections, deadline, onConnectionError }) : undefined;
  if (onBudgetShort) {
    const refused = [...(await refusedOfPool(pool, poolSize)), ...((await reads?.opened) ?? [])];
    if (refused.length > 0) onBudgetShort({ wanted: poolSize + readConnections, refused });
  }
  if (onStatement) observePostgresStatements(pool, onStatement, reads);

  const db = drizzle({ client: pool, schema });
  return {
    pets: createPostgresPetRecords(db, reads ?? pool),
    apiKeys: createPostgresApiKeyRecords(db),
    ping: async () => {
      await pool.query('select 1');
    },
    close: async () => {
      if (pool.ended) return;
      // pool.end() waits for every checked-out client; one that a broken connection left checked
      // out would hold a shutdown forever. It waits at most what a query may take.
      const bound = timeouts.connectMs + timeouts.statementMs + STALL_MARGIN_MS;
      await Promise.race([Promise.all([pool.end(), reads?.close()]), sleep(bound, undefined, { ref: false })]);
    },
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
};
