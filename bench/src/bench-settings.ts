import { isAbsolute } from 'node:path';

/**
 * The bench's own environment variables, each spelled here and nowhere else: the runs read them
 * through the functions below, and messages that must name one to a person take it from here.
 */
export const BENCH_VARIABLES = {
  connections: 'BENCH_CONNECTIONS',
  seconds: 'BENCH_SECONDS',
  rounds: 'BENCH_ROUNDS',
  postgres: 'BENCH_POSTGRES',
  postgresUrl: 'BENCH_POSTGRES_URL',
  redisUrl: 'BENCH_REDIS_URL',
  before: 'BENCH_BEFORE',
  soakSeconds: 'SOAK_SECONDS',
  scaleRequests: 'SCALE_REQUESTS',
} as const;

type Variable = keyof typeof BENCH_VARIABLES;

const textOf = (variable: Variable) => process.env[BENCH_VARIABLES[variable]] || undefined;

const positiveNumber = (variable: Variable, fallback: number) => {
  const text = textOf(variable);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!(value > 0)) throw new Error(`${BENCH_VARIABLES[variable]} must be a positive number, not ${text}`);
  return value;
};

/**
 * Another checkout of this repository, installed and built, whose service runs beside this one's.
 * Absolute, because turbo runs the bench in bench/, not where the command was typed.
 */
const beforeCheckout = () => {
  const folder = textOf('before');
  if (folder !== undefined && !isAbsolute(folder)) throw new Error(`${BENCH_VARIABLES.before} must be an absolute path, not ${folder}`);
  return folder;
};

/** What `npx pnpm bench` runs. */
export const benchSettings = () => ({
  connections: positiveNumber('connections', 32),
  seconds: positiveNumber('seconds', 3),
  rounds: positiveNumber('rounds', 7),
  // Four more targets and half again the run time: opt-in, so a default run stays near 13 minutes.
  postgres: textOf('postgres') === '1',
  beforeCheckout: beforeCheckout(),
});

/** What `npx pnpm bench:scale` runs: fewer rounds, each of many requests one at a time. */
export const scaleSettings = () => ({
  requests: positiveNumber('scaleRequests', 2_000),
  rounds: positiveNumber('rounds', 3),
});

/** How long `npx pnpm soak` loads the service. */
export const soakSeconds = () => positiveNumber('soakSeconds', 60);

/** The server the PostgreSQL targets run on; its own database there is only used to create and drop theirs. */
export const benchPostgresUrl = () => textOf('postgresUrl') ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The Redis the service on PostgreSQL keeps its rate limit's counts in. */
export const benchRedisUrl = () => textOf('redisUrl') ?? 'redis://127.0.0.1:6379';
