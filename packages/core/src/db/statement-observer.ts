import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';

/**
 * Told when a SQL statement starts; what it returns is told when the statement ends, with its
 * error if it failed. Tracing passes one (a span per statement); without it nothing is wrapped.
 */
export type StatementObserver = (system: 'sqlite' | 'postgresql', statement: string) => (error?: unknown) => void;

/**
 * Every statement prepared from now on reports each run: Drizzle prepares through
 * `prepare` and runs `all`, `get` or `run` (`raw()` returns the same statement).
 */
export const observeSqliteStatements = (sqlite: BetterSqlite3.Database, observe: StatementObserver): void => {
  const prepare = sqlite.prepare.bind(sqlite);
  sqlite.prepare = ((source: string) => {
    const statement = prepare(source);
    for (const method of ['all', 'get', 'run'] as const) {
      const original = (statement as unknown as Record<string, (...args: unknown[]) => unknown>)[method];
      if (!original) continue;
      (statement as unknown as Record<string, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
        const end = observe('sqlite', source);
        try {
          const result = original.apply(this, args);
          end();
          return result;
        } catch (error) {
          end(error);
          throw error;
        }
      };
    }
    return statement;
  }) as typeof sqlite.prepare;
};

type Query = (...args: unknown[]) => unknown;

const textOf = (config: unknown): string => {
  if (typeof config === 'string') return config;
  const text = (config as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text : '';
};

/** Observes a promise-form query; a query given a callback is left alone (the pool's own, observed above it). */
const observed = (query: Query, observe: StatementObserver): Query =>
  function (this: unknown, ...args: unknown[]) {
    if (typeof args[args.length - 1] === 'function') return query.apply(this, args);
    const end = observe('postgresql', textOf(args[0]));
    const result = query.apply(this, args);
    (result as Promise<unknown>).then(
      () => {
        end();
      },
      (error: unknown) => {
        end(error);
      },
    );
    return result;
  };

/**
 * Statements sent through the pool (`pool.query`, what Drizzle uses outside transactions), through
 * a client checked out with `pool.connect()` (Drizzle's transactions) and through the pipelined
 * reads. The statement is observed where it is called, so its span is the caller's child even when
 * it waits for a connection.
 */
export const observePostgresStatements = (pool: pg.Pool, observe: StatementObserver, reads?: Pick<pg.Pool, 'query'>): void => {
  const wrapped = new WeakSet<object>();
  pool.query = observed(pool.query.bind(pool), observe) as typeof pool.query;
  if (reads) reads.query = observed(reads.query.bind(reads), observe) as typeof reads.query;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  pool.connect = ((...args: unknown[]) => {
    if (args.length > 0) return connect(...args);
    return (connect() as Promise<pg.PoolClient>).then((client) => {
      if (!wrapped.has(client)) {
        wrapped.add(client);
        client.query = observed(client.query.bind(client), observe) as typeof client.query;
      }
      return client;
    });
  }) as typeof pool.connect;
};
