import type pg from 'pg';

/** pg's own field, untyped in @types/pg: the process id in the BackendKeyData the server sent at the start. */
type Keyed = pg.Client & { processID?: number | null };

/** Extended protocol: a pipelined connection (pipelined-reads.ts) carries no simple query. */
const BACKEND = { text: 'select pg_backend_pid() as pid', queryMode: 'extended' } as const;

type Query = (...args: unknown[]) => unknown;

/**
 * A connection sends its statements unnamed until it knows they outlive a transaction on it, then
 * named (each prepared, so parsed and planned, once per connection). It knows when the process
 * running its statements is the one PostgreSQL's BackendKeyData named at the start: a backend of
 * its own to the end. A pooler answers the start with a key of its own (PgBouncer's is random, in
 * either pool mode), since in transaction mode it may run each transaction on another server
 * connection, where a name prepared on the last one does not exist; so behind any pooler, session
 * mode too, statements stay unnamed, and a statement never names what its server has not prepared.
 * The question is the connection's first statement, in the same queue as the rest; while it is
 * unanswered, or if it fails, statements go unnamed, which any address answers
 * (docs/decisions/2026-11-29-named-where-the-connection-keeps-them.md has the measurement).
 */
export const nameStatementsWhereKept = (client: pg.Client): void => {
  let kept = false;
  const query = client.query.bind(client) as Query;
  client.query = ((config: unknown, ...rest: unknown[]) => {
    if (kept || typeof config !== 'object' || config === null || !(config as { name?: unknown }).name || 'submit' in config) return query(config, ...rest);
    // A copy: Drizzle's prepared queries pass one shared config object on every run.
    return query({ ...config, name: undefined }, ...rest);
  }) as typeof client.query;
  (query({ ...BACKEND }) as Promise<pg.QueryResult<{ pid: number }>>).then(
    ({ rows }) => {
      const processID = (client as Keyed).processID;
      kept = typeof processID === 'number' && rows[0]?.pid === processID;
    },
    () => undefined,
  );
};
