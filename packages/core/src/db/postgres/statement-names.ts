import type pg from 'pg';

/** pg's own field, untyped in @types/pg: the process id in the BackendKeyData the server sent at the start. */
type Keyed = pg.Client & { processID?: number | null };

/** Extended protocol: a pipelined connection (pipelined-reads.ts) carries no simple query. */
const BACKEND = { text: 'select pg_backend_pid() as pid', queryMode: 'extended' } as const;

type Query = (...args: unknown[]) => unknown;

/**
 * Asks, as a connection's first statement, whether its statements outlive a transaction on it, and
 * unless they do, has it send every statement unnamed from then on; named, each is prepared (parsed
 * and planned) once per connection. They do when the process running its statements is the one
 * PostgreSQL's BackendKeyData named at the start: a backend of its own to the end. A pooler answers
 * the start with a key of its own (PgBouncer's is random, in either pool mode), since in
 * transaction mode it may run each transaction on another server connection, where a name prepared
 * on the last one does not exist; so behind any pooler, session mode too, statements go unnamed,
 * and a statement never names what its server has not prepared. A question that fails leaves them
 * unnamed, which any address answers. The connection carries nothing else until this settles; it
 * never fails (docs/decisions/2026-11-29-named-where-the-connection-keeps-them.md).
 */
export const nameStatementsWhereKept = async (client: pg.Client): Promise<void> => {
  const processID = (client as Keyed).processID;
  const answered = await client.query<{ pid: number }>(BACKEND as pg.QueryConfig).then(
    ({ rows }) => rows[0]?.pid,
    () => undefined,
  );
  if (typeof processID === 'number' && answered === processID) return;
  const query = client.query.bind(client) as Query;
  client.query = ((config: unknown, ...rest: unknown[]) => {
    if (typeof config !== 'object' || config === null || !(config as { name?: unknown }).name || 'submit' in config) return query(config, ...rest);
    // A copy: Drizzle's prepared queries pass one shared config object on every run.
    return query({ ...config, name: undefined }, ...rest);
  }) as typeof client.query;
};
