/**
 * The PostgreSQL connections one instance opens at most, unless its settings say otherwise: a pool
 * for writes and transactions, and the connections the reads share, pipelined. Two read
 * connections let PostgreSQL run two reads at once while each carries many; a third cost CPU per
 * read for no gain (2026-11-26-postgres-reads-pipelined.md). Instances × (pool + reads) must fit
 * in what the database, or the pooler in front of it, allows (docs/operating.md, Connection budget).
 */
export const DEFAULT_CONNECTION_BUDGET = { pool: 10, reads: 2 } as const;

export interface ConnectionBudget {
  /** Connections of the pool: writes, transactions, and the reads when `reads` is 0. */
  pool: number;
  /** Connections the reads share, pipelined; 0: the reads use the pool. */
  reads: number;
}

/**
 * How the service's connections reach PostgreSQL. `transaction`, the default, is right on any
 * address: a pooler in transaction mode (PgBouncer's, a managed PostgreSQL's pooled address) may run
 * each transaction on another server connection, so nothing is left on one between transactions
 * (no named statement, session lock or session setting). `session`: each connection is a session
 * of its own to the end (a direct address, or a pooler in session mode), so the statements on the
 * request path are prepared once per connection and planned once
 * (docs/decisions/2026-11-28-postgres-as-fleets-run-it.md).
 */
export const POOL_MODES = ['transaction', 'session'] as const;
export type PoolMode = (typeof POOL_MODES)[number];
export const DEFAULT_POOL_MODE: PoolMode = 'transaction';
