import { DEFAULT_CONNECTION_BUDGET, DEFAULT_DATABASE_TIMEOUTS, REST_PREFIX } from '@petstore/core';
import proxyAddr from 'proxy-addr';
import { z } from 'zod';
import { BODY_LIMIT_TEXT } from '../http/read-body.js';

const compilesAsProxyList = (list: string[]) => {
  try {
    proxyAddr.compile(list);
    return true;
  } catch {
    return false;
  }
};

/**
 * How much of the service's own work may be ahead of a request: when even the least of a window
 * is more, the queue is not draining, and requests with twice as much ahead are shed
 * (front-door/overload.ts). Saturated by the bench's 32 connections, a request has a few
 * milliseconds of work ahead; a client the service could start on only 200 ms from now is better
 * told at once to retry elsewhere (docs/operating.md, Overload).
 */
export const DEFAULT_OVERLOAD_DELAY_MS = 100;

/** How long requests accepted before a stop may take to finish, unless the environment says otherwise. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/**
 * How long, once stopping, an idle keep-alive connection is left for its client to close: Node's
 * own `keepAliveTimeout`, which a proxy's idle timeout towards the service is set below.
 */
export const DEFAULT_SHUTDOWN_IDLE_MS = 5_000;

/** `*`, or a scheme, host and port with nothing after: what a browser sends as `Origin`. */
const isOrigin = (entry: string) => {
  if (entry === '*') return true;
  try {
    return new URL(entry).origin === entry;
  } catch {
    return false;
  }
};

/**
 * How long an instance holds a key it authenticated before reading its row again: the longest a
 * revocation, or the end of a rotation's grace, takes to reach every instance.
 */
export const DEFAULT_API_KEY_CACHE_MS = 2_000;

/** An empty variable counts as unset, as shells and .env files commonly leave them. */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

/** The port the service listens on unless `PORT` says otherwise. */
const DEFAULT_PORT = 3000;

const Port = z
  .string()
  .regex(/^[0-9]{1,5}$/, 'must be a port number')
  .transform(Number)
  .pipe(z.int().max(65_535, 'must be a port number'));

/**
 * How long a request may wait for each dependency, unless the environment says otherwise. Redis
 * only counts requests, so it gets tens of milliseconds before the in-process count answers instead.
 */
export const DEFAULT_BOUNDS = {
  redisTimeoutMs: 50,
  databaseConnectTimeoutMs: DEFAULT_DATABASE_TIMEOUTS.connectMs,
  databaseStatementTimeoutMs: DEFAULT_DATABASE_TIMEOUTS.statementMs,
} as const;

/**
 * How long each phase of a request may take and how many connections are served, unless the
 * environment says otherwise (docs/operating.md, Bounds): a client that sends or reads slowly, or
 * opens many connections, holds a bounded share of the service for a bounded time.
 */
export const DEFAULT_REQUEST_BOUNDS = {
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
  sendTimeoutMs: 30_000,
  maxConnections: 1_024,
  // An eighth of MAX_CONNECTIONS, so that no one address, nor seven, can take every connection.
  maxConnectionsPerAddress: 128,
  // Twice Node's own, so that a burst of connections the service is closing fast overflows the
  // kernel's queue later.
  listenBacklog: 1_024,
  // Within what `start`'s heap leaves, so that unsent answers cannot crowd out the process's own
  // memory. The figures: docs/decisions/2026-11-28-what-a-client-can-make-the-process-hold.md.
  maxUnsentBytes: 32 * 1024 * 1024,
} as const;

/**
 * The most bytes of log lines the process holds for a stdout that does not take them as fast as
 * they come (a pipe nobody reads, a full disk, a slow collector, or only the thread pool's round
 * trips behind a flood of requests): past it lines are dropped and counted, never queued without
 * bound. Some 1,800 access lines of the longest URL logged, seconds of the busiest load; a thirty-second of `start`'s heap.
 */
export const DEFAULT_LOG_BACKLOG_BYTES = 4 * 1024 * 1024;

const Milliseconds = z
  .string()
  .regex(/^[1-9][0-9]{0,6}$/, 'must be a whole number of milliseconds, 1 or more')
  .transform(Number);

/** A count per minute; `off` says what 0 does. */
const Count = (off: string) =>
  z
    .string()
    .regex(/^[0-9]{1,9}$/, `must be a whole number (${off})`)
    .transform(Number);

/** A duration whose 0 turns something off; `off` says what. */
const MillisecondsOrOff = (off: string) =>
  z
    .string()
    .regex(/^[0-9]{1,6}$/, `must be a whole number of milliseconds (${off})`)
    .transform(Number);

const CommaList = z.string().transform((list) => list.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''));

interface Setting {
  /** The environment variable. */
  variable: string;
  /** Its type, rules and default; an empty variable counts as unset. */
  schema: z.ZodType<unknown, string | undefined>;
  /** What reads it: the service, the `keys` or `backup` CLI, a library. */
  readBy: string;
  /** The settings table's words for it (docs/operating.md), in Markdown. */
  description: string;
}

/**
 * Every setting, declared once: the variable, its type and default, who reads it and what it means.
 * `readConfig` parses them; docs/operating.md's table is `settingsTable()` (a test fails when they differ)
 * and turbo passes each variable through (a test checks turbo.json).
 */
export const SETTINGS = {
  port: {
    variable: 'PORT',
    schema: Port.default(DEFAULT_PORT),
    readBy: 'service',
    description:
      'listening port; `0` picks a free one (the chosen port is logged)',
  },
  host: {
    variable: 'HOST',
    schema: z.string().default('127.0.0.1'),
    readBy: 'service, metrics',
    description:
      'listening address',
  },
  databaseFile: {
    variable: 'PETSTORE_DB',
    schema: z.string().default('./data/petstore.db'),
    readBy: 'service, keys and backup CLIs',
    description:
      'SQLite file, created with its folder; `:memory:` allowed. Relative paths start from `apps/api`, where `npx pnpm start`, `npx pnpm keys` and `npx pnpm backup` run',
  },
  databaseUrl: {
    variable: 'DATABASE_URL',
    schema: z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
    readBy: 'service, keys and backup CLIs',
    description:
      '`postgres://…`: PostgreSQL instead of SQLite (`PETSTORE_DB` is then ignored)',
  },
  redisUrl: {
    variable: 'REDIS_URL',
    schema: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// URL' }).optional(),
    readBy: 'service',
    description:
      '`redis://…`: rate limits shared by every instance; unset, each process counts its own',
  },
  redisKeyPrefix: {
    variable: 'REDIS_KEY_PREFIX',
    schema: z.string().default('petstore:'),
    readBy: 'service',
    description:
      'starts every key the service writes in Redis, so several deployments can share one Redis',
  },
  redisTimeoutMs: {
    variable: 'REDIS_TIMEOUT_MS',
    schema: Milliseconds.default(DEFAULT_BOUNDS.redisTimeoutMs),
    readBy: 'service',
    description:
      "the longest a Redis command may take before the instance's own count answers instead (see [Bounded waits](#bounded-waits))",
  },
  databaseConnectTimeoutMs: {
    variable: 'DATABASE_CONNECT_TIMEOUT_MS',
    schema: Milliseconds.default(DEFAULT_BOUNDS.databaseConnectTimeoutMs),
    readBy: 'service, keys CLI',
    description:
      'the longest a request waits for a PostgreSQL connection, then 503',
  },
  databaseStatementTimeoutMs: {
    variable: 'DATABASE_STATEMENT_TIMEOUT_MS',
    schema: Milliseconds.default(DEFAULT_BOUNDS.databaseStatementTimeoutMs),
    readBy: 'service, keys and backup CLIs',
    description:
      "the longest a statement may run on PostgreSQL (then the service cancels it), or wait for SQLite's write lock; then 503",
  },
  databasePoolSize: {
    variable: 'DATABASE_POOL_SIZE',
    schema: Count('at least 1').pipe(z.int().min(1, 'must be at least 1')).default(DEFAULT_CONNECTION_BUDGET.pool),
    readBy: 'service',
    description:
      "PostgreSQL connections of each instance's pool: creates, transactions, and the reads when `DATABASE_READ_CONNECTIONS` is `0`. Instances × (this + `DATABASE_READ_CONNECTIONS`) must fit in what the database or its pooler allows (see [Connection budget](#connection-budget))",
  },
  databaseReadConnections: {
    variable: 'DATABASE_READ_CONNECTIONS',
    schema: Count('0 lets the reads use the pool').default(DEFAULT_CONNECTION_BUDGET.reads),
    readBy: 'service',
    description:
      'PostgreSQL connections of each instance that the reads of animals share, pipelined; `0`: the reads use the pool',
  },
  publicBaseUrl: {
    variable: 'PUBLIC_BASE_URL',
    schema: z.url().default(`http://localhost:${DEFAULT_PORT}${REST_PREFIX}`),
    readBy: 'service',
    description:
      'production server entry of the OpenAPI document',
  },
  stagingBaseUrl: {
    variable: 'STAGING_BASE_URL',
    schema: z.url().optional(),
    readBy: 'service',
    description:
      'staging server entry of the OpenAPI document',
  },
  rateLimitPerMinute: {
    variable: 'RATE_LIMIT_PER_MINUTE',
    schema: Count('0 turns rate limiting off').default(600),
    readBy: 'service',
    description:
      'requests per API key per minute (each call of a tRPC batch counts); `0` turns rate limiting off',
  },
  authFailuresPerMinute: {
    variable: 'AUTH_FAILURES_PER_MINUTE',
    schema: Count('0 turns the throttle off').default(60),
    readBy: 'service',
    description:
      'refused keys per client address per minute, then 429; `0` turns the throttle off',
  },
  corsOrigins: {
    variable: 'CORS_ORIGINS',
    schema: CommaList.refine((origins) => origins.every(isOrigin), 'must list origins such as https://app.example.com, or *, comma-separated').default([]),
    readBy: 'service',
    description:
      'browser origins allowed to call `/v1` and `/trpc` (comma-separated, such as `https://app.example.com`, or `*` for any); unset, no CORS headers at all. See [Browsers](#browsers)',
  },
  overloadDelayMs: {
    variable: 'OVERLOAD_DELAY_MS',
    schema: MillisecondsOrOff('0 turns load shedding off').default(DEFAULT_OVERLOAD_DELAY_MS),
    readBy: 'service',
    description:
      "how much of the service's own work (ms) may be ahead of a request: when the least of a 250 ms window is more, it is overloaded, and requests with twice this ahead are refused with 503 (see [Overload](#overload)); `0` turns shedding off",
  },
  shutdownDelayMs: {
    variable: 'SHUTDOWN_DELAY_MS',
    schema: MillisecondsOrOff('0 starts draining at once').default(0),
    readBy: 'service',
    description:
      'after SIGTERM or SIGINT, how long (ms) the service keeps serving with `/readyz` at 503 before it drains, for load balancers that learn of the stop late (see [Stopping](#stopping))',
  },
  shutdownGraceMs: {
    variable: 'SHUTDOWN_GRACE_MS',
    schema: Milliseconds.default(DEFAULT_SHUTDOWN_GRACE_MS),
    readBy: 'service',
    description: 'how long (ms) requests accepted before a stop may take to finish; past it, those still running are cut',
  },
  shutdownIdleMs: {
    variable: 'SHUTDOWN_IDLE_MS',
    schema: MillisecondsOrOff('0 closes them at once').default(DEFAULT_SHUTDOWN_IDLE_MS),
    readBy: 'service',
    description:
      "once stopping, how long (ms) a keep-alive connection with no request on it is left for its client to close before the service closes it (`0`: at once, for no proxy). Keep it above a proxy's idle timeout towards the service (nginx's upstream `keepalive_timeout`): closing a connection the proxy is about to use loses that request",
  },
  headersTimeoutMs: {
    variable: 'HEADERS_TIMEOUT_MS',
    schema: Milliseconds.default(DEFAULT_REQUEST_BOUNDS.headersTimeoutMs),
    readBy: 'service',
    description:
      "the longest a client may take to send a request's headers, from its first byte, or from when it connected for a connection that sends nothing; then the connection is closed (nginx's `client_header_timeout`)",
  },
  bodyTimeoutMs: {
    variable: 'BODY_TIMEOUT_MS',
    schema: Milliseconds.default(DEFAULT_REQUEST_BOUNDS.bodyTimeoutMs),
    readBy: 'service',
    description:
      `how long a request's body may take beyond \`HEADERS_TIMEOUT_MS\`: a request must have arrived whole, headers and body, within the two from its first byte (looked at once a second); then 408 and the connection is closed (nginx's \`client_body_timeout\`). A body of at most ${BODY_LIMIT_TEXT} needs a fraction of it on any working link`,
  },
  sendTimeoutMs: {
    variable: 'SEND_TIMEOUT_MS',
    schema: Milliseconds.default(DEFAULT_REQUEST_BOUNDS.sendTimeoutMs),
    readBy: 'service',
    description:
      "the longest a client may go without taking any of an answer the service holds for it; then the connection is closed, so a client that does not read holds no memory (nginx's `send_timeout`)",
  },
  maxConnections: {
    variable: 'MAX_CONNECTIONS',
    schema: Count('at least 1').pipe(z.int().min(1, 'must be at least 1')).default(DEFAULT_REQUEST_BOUNDS.maxConnections),
    readBy: 'service',
    description:
      'open connections the API serves; a connection past it gets one answer with `Connection: close`: `/healthz` and `/readyz` as usual, anything else 503 with `Retry-After`. Each connection may hold an answer, so this bounds the memory slow clients can hold (see [Bounds](#bounds))',
  },
  maxConnectionsPerAddress: {
    variable: 'MAX_CONNECTIONS_PER_ADDRESS',
    schema: Count('at least 1').pipe(z.int().min(1, 'must be at least 1')).default(DEFAULT_REQUEST_BOUNDS.maxConnectionsPerAddress),
    readBy: 'service',
    description:
      "open connections one client address may hold, on the public and the metrics port together, so one address cannot take the connections others need; a connection past it gets one answer, 503 with `Retry-After` and `Connection: close` (`/healthz` and `/readyz` as usual), if it sends its request within a second and fewer than 256 such wait, and is closed otherwise. Connections from a proxy named in `TRUST_PROXY` are bounded by `MAX_CONNECTIONS` only (the proxy bounds its own clients)",
  },
  listenBacklog: {
    variable: 'LISTEN_BACKLOG',
    schema: Count('at least 1').pipe(z.int().min(1, 'must be at least 1')).default(DEFAULT_REQUEST_BOUNDS.listenBacklog),
    readBy: 'service',
    description:
      "connections the system queues for the service before it accepts them (`listen()`'s backlog, capped by the system's `net.core.somaxconn`); past it the system drops new handshakes",
  },
  maxUnsentBytes: {
    variable: 'MAX_UNSENT_BYTES',
    schema: Count('at least 1').pipe(z.int().min(1, 'must be at least 1')).default(DEFAULT_REQUEST_BOUNDS.maxUnsentBytes),
    readBy: 'service',
    description:
      "bytes of answers the process may hold for clients that have not taken them, all clients together; one client address may hold a quarter. A large answer that does not fit is refused with 503 and `Retry-After` before it is written (see [Bounds](#bounds))",
  },
  trustProxy: {
    variable: 'TRUST_PROXY',
    schema: CommaList.refine(compilesAsProxyList, 'must list addresses, CIDR ranges, loopback, linklocal or uniquelocal, comma-separated').default([]),
    readBy: 'service',
    description:
      "proxies whose `X-Forwarded-For` names the client (comma-separated addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`); unset, the client is the connection's address",
  },
  logLevel: {
    variable: 'LOG_LEVEL',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    readBy: 'service, keys CLI',
    description:
      'pino level: `fatal` … `trace`, or `silent`',
  },
  logBacklogBytes: {
    variable: 'LOG_BACKLOG_BYTES',
    schema: Count('at least 1').pipe(z.int().min(1, 'must be at least 1')).default(DEFAULT_LOG_BACKLOG_BYTES),
    readBy: 'service',
    description:
      "bytes of log lines the process holds for a stdout that does not take them as fast as they come; past it lines are dropped and counted (`petstore_log_lines_dropped_total`, and one warn line once the log flows again), never queued without bound nor waited for: a log that blocked would stall every request behind a stalled stdout",
  },
  trpcAllowMethodOverride: {
    variable: 'TRPC_ALLOW_METHOD_OVERRIDE',
    schema: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false').transform((value) => value === 'true'),
    readBy: 'service',
    description:
      "`true`: `/trpc` also takes queries as POST, for links set up with `methodOverride: 'POST'` (tRPC's `allowMethodOverride`)",
  },
  firstApiKey: {
    variable: 'FIRST_API_KEY',
    schema: z.enum(['print', 'hint'], { error: 'must be print or hint' }).default('print'),
    readBy: 'service',
    description:
      "what a start on a store that never had a key does: `print` creates one and prints it once, so `npx pnpm start` and `curl` work with nothing else; `hint` creates none and logs how to make one, for a deployment whose output is kept where others read it (the image sets it: a key in a container's log is a key for whoever reads the log)",
  },
  apiKeyCacheMs: {
    variable: 'API_KEY_CACHE_MS',
    schema: MillisecondsOrOff('0 reads the key on every request').default(DEFAULT_API_KEY_CACHE_MS),
    readBy: 'service',
    description:
      "how long an instance holds a key it has authenticated before reading its row again: the longest a revocation, or the end of a rotation's grace, takes to reach every instance; `0` reads the row on every request",
  },
  metricsPort: {
    variable: 'METRICS_PORT',
    schema: Port.optional(),
    readBy: 'service',
    description:
      'serves `GET /metrics` (Prometheus) on `HOST:METRICS_PORT`; unset, no metrics at all. See [Metrics](#metrics)',
  },
  tracing: {
    variable: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    // Read by the SDK itself; here only to say whether tracing is on.
    schema: z.string().optional(),
    readBy: "OpenTelemetry's SDK",
    description:
      "OTLP/HTTP collector, such as `http://127.0.0.1:4318`: turns tracing on. The SDK's other standard variables apply (`OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`…). See [Tracing](#tracing)",
  },
} as const satisfies Record<string, Setting>;

/** A setting's environment variable, for messages that must name it to a person. */
export const variableOf = (key: keyof typeof SETTINGS): string => SETTINGS[key].variable;

/**
 * Tracing is on when an OTLP endpoint is set, as the OpenTelemetry specification names it, and
 * the SDK is not disabled. The SDK reads its other standard variables itself.
 */
const tracingRequested = (env: NodeJS.ProcessEnv): boolean =>
  Boolean(env[SETTINGS.tracing.variable] ?? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) &&
  env.OTEL_SDK_DISABLED?.toLowerCase() !== 'true' &&
  env.OTEL_TRACES_EXPORTER?.toLowerCase() !== 'none';

type Settings = { [Key in keyof typeof SETTINGS]: z.output<(typeof SETTINGS)[Key]['schema']> };

/** The settings the service runs on, by their names in code. */
export type Config = Omit<Settings, 'tracing'> & {
  /** An OTLP endpoint is set and the SDK is not disabled: requests are traced. */
  tracing: boolean;
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads the runtime settings, naming every variable that is set wrong. */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const problems: string[] = [];
  const settings = Object.fromEntries(
    Object.entries(SETTINGS).map(([key, { variable, schema }]) => {
      const parsed = z.preprocess(unsetIfEmpty, schema).safeParse(env[variable]);
      if (!parsed.success) problems.push(...parsed.error.issues.map((issue) => `${variable} ${issue.message}`));
      return [key, parsed.data];
    }),
  ) as Settings;
  if (problems.length > 0) throw new ConfigError(`Invalid environment: ${problems.join('; ')}.`);
  return { ...settings, tracing: tracingRequested(env) };
};

/** How the settings table shows a setting's default: the value the schema gives an unset variable. */
const shownDefault = (schema: Setting['schema']) => {
  const value = schema.safeParse(undefined).data;
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return 'unset';
  return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
};

/** The settings table of docs/operating.md, as the declarations say it. */
export const settingsTable = (): string =>
  [
    '| variable | default | meaning |',
    '|---|---|---|',
    ...Object.values(SETTINGS).map(
      ({ variable, schema, description }: Setting) => `| \`${variable}\` | ${shownDefault(schema)} | ${description} |`,
    ),
  ].join('\n');
