import { DEFAULT_DATABASE_TIMEOUTS } from '@petstore/core';
import proxyAddr from 'proxy-addr';
import { z } from 'zod';
import { tracingRequested } from './tracing-requested.js';

const compilesAsProxyList = (list: string[]) => {
  try {
    proxyAddr.compile(list);
    return true;
  } catch {
    return false;
  }
};

/**
 * The mean event-loop delay past which the service sheds load: far above what a saturated but
 * healthy service shows (README, Overload); past it, requests wait on each other rather than on
 * work.
 */
export const DEFAULT_OVERLOAD_DELAY_MS = 100;

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
const setting = <T extends z.ZodType>(schema: T) => z.preprocess(unsetIfEmpty, schema);

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

const Milliseconds = z
  .string()
  .regex(/^[1-9][0-9]{0,6}$/, 'must be a whole number of milliseconds, 1 or more')
  .transform(Number);

const Environment = z.object({
  PORT: setting(Port.default(3000)),
  HOST: setting(z.string().default('127.0.0.1')),
  PETSTORE_DB: setting(z.string().default('./data/petstore.db')),
  DATABASE_URL: setting(
    z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
  ),
  REDIS_URL: setting(z.url({ protocol: /^rediss?$/, error: 'must be a redis:// URL' }).optional()),
  REDIS_KEY_PREFIX: setting(z.string().default('petstore:')),
  REDIS_TIMEOUT_MS: setting(Milliseconds.default(DEFAULT_BOUNDS.redisTimeoutMs)),
  DATABASE_CONNECT_TIMEOUT_MS: setting(Milliseconds.default(DEFAULT_BOUNDS.databaseConnectTimeoutMs)),
  DATABASE_STATEMENT_TIMEOUT_MS: setting(Milliseconds.default(DEFAULT_BOUNDS.databaseStatementTimeoutMs)),
  PUBLIC_BASE_URL: setting(z.url().default('http://localhost:3000/v1')),
  STAGING_BASE_URL: setting(z.url().optional()),
  RATE_LIMIT_PER_MINUTE: setting(
    z
      .string()
      .regex(/^[0-9]{1,9}$/, 'must be a whole number (0 turns rate limiting off)')
      .transform(Number)
      .default(600),
  ),
  AUTH_FAILURES_PER_MINUTE: setting(
    z
      .string()
      .regex(/^[0-9]{1,9}$/, 'must be a whole number (0 turns the throttle off)')
      .transform(Number)
      .default(60),
  ),
  TRUST_PROXY: setting(
    z
      .string()
      .transform((list) => list.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''))
      .refine(compilesAsProxyList, 'must list addresses, CIDR ranges, loopback, linklocal or uniquelocal, comma-separated')
      .default([]),
  ),
  OVERLOAD_DELAY_MS: setting(
    z
      .string()
      .regex(/^[0-9]{1,6}$/, 'must be a whole number of milliseconds (0 turns load shedding off)')
      .transform(Number)
      .default(DEFAULT_OVERLOAD_DELAY_MS),
  ),
  CORS_ORIGINS: setting(
    z
      .string()
      .transform((list) => list.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''))
      .refine((origins) => origins.every(isOrigin), 'must list origins such as https://app.example.com, or *, comma-separated')
      .default([]),
  ),
  METRICS_PORT: setting(Port.optional()),
  API_KEY_CACHE_MS: setting(
    z
      .string()
      .regex(/^[0-9]{1,6}$/, 'must be a whole number of milliseconds (0 reads the key on every request)')
      .transform(Number)
      .default(DEFAULT_API_KEY_CACHE_MS),
  ),
  TRPC_ALLOW_METHOD_OVERRIDE: setting(z.enum(['true', 'false'], { error: 'must be true or false' }).default('false')),
  LOG_LEVEL: setting(
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
});

export interface Config {
  port: number;
  host: string;
  /** SQLite file, or `:memory:`; used when there is no databaseUrl. */
  databaseFile: string;
  /** PostgreSQL, shared by every instance; unset: the SQLite file. */
  databaseUrl: string | undefined;
  /** Redis for the counts instances share (rate limits); unset: each process counts its own. */
  redisUrl: string | undefined;
  /** Starts every key the service writes in Redis, so deployments can share one Redis. */
  redisKeyPrefix: string;
  /** The longest a Redis command may take before the in-process count answers instead. */
  redisTimeoutMs: number;
  /** The longest a request waits for a database connection (PostgreSQL's pool). */
  databaseConnectTimeoutMs: number;
  /** The longest one statement may run (PostgreSQL), or wait for SQLite's write lock. */
  databaseStatementTimeoutMs: number;
  publicBaseUrl: string;
  stagingBaseUrl: string | undefined;
  /** Requests per API key per minute; 0 turns rate limiting off. */
  rateLimitPerMinute: number;
  /** Failed authentications per client address per minute; 0 turns the throttle off. */
  authFailuresPerMinute: number;
  /** Proxies whose `X-Forwarded-For` names the client (addresses, CIDR ranges, `loopback`…). */
  trustProxy: string[];
  /** Browser origins allowed to call the API (`*`: any); empty: no CORS headers at all. */
  corsOrigins: string[];
  /** Mean event-loop delay (ms) over which new requests are refused with 503; 0: never. */
  overloadDelayMs: number;
  logLevel: z.output<typeof Environment>['LOG_LEVEL'];
  /** Where `GET /metrics` is served, on HOST; undefined: no metrics at all. */
  metricsPort: number | undefined;
  /** An OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT…): requests are traced. */
  tracing: boolean;
  /** How long an authenticated key is held in the process before its row is read again; 0: every request. */
  apiKeyCacheMs: number;
  /** `/trpc` takes queries as POST too, as tRPC's `allowMethodOverride` (`methodOverride: 'POST'` in the links). */
  trpcAllowMethodOverride: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads the runtime settings, naming every variable that is set wrong. */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const parsed = Environment.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
    throw new ConfigError(`Invalid environment: ${problems.join('; ')}.`);
  }
  const settings = parsed.data;
  return {
    port: settings.PORT,
    host: settings.HOST,
    databaseFile: settings.PETSTORE_DB,
    databaseUrl: settings.DATABASE_URL,
    redisUrl: settings.REDIS_URL,
    redisKeyPrefix: settings.REDIS_KEY_PREFIX,
    redisTimeoutMs: settings.REDIS_TIMEOUT_MS,
    databaseConnectTimeoutMs: settings.DATABASE_CONNECT_TIMEOUT_MS,
    databaseStatementTimeoutMs: settings.DATABASE_STATEMENT_TIMEOUT_MS,
    publicBaseUrl: settings.PUBLIC_BASE_URL,
    stagingBaseUrl: settings.STAGING_BASE_URL,
    rateLimitPerMinute: settings.RATE_LIMIT_PER_MINUTE,
    authFailuresPerMinute: settings.AUTH_FAILURES_PER_MINUTE,
    trustProxy: settings.TRUST_PROXY,
    corsOrigins: settings.CORS_ORIGINS,
    overloadDelayMs: settings.OVERLOAD_DELAY_MS,
    logLevel: settings.LOG_LEVEL,
    metricsPort: settings.METRICS_PORT,
    tracing: tracingRequested(env),
    apiKeyCacheMs: settings.API_KEY_CACHE_MS,
    trpcAllowMethodOverride: settings.TRPC_ALLOW_METHOD_OVERRIDE === 'true',
  };
};
