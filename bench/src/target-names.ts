import { SETTINGS } from '@petstore/api/settings';

/** The targets' names in the tables, the results file and the verdicts. */
export const REST = 'REST /v1';
export const TRPC = 'tRPC /trpc';
/** The same service with Prometheus metrics on (their port set, nothing scraping). */
export const REST_WITH_METRICS = `REST /v1, ${SETTINGS.metricsPort.variable} set`;
/** With metrics on, a call may cost at most this many times its CPU without. */
export const METRICS_MAX_CPU_FACTOR = 1.05;
/**
 * Appended to the names of REST and REST with metrics for the rounds that load both at once: the
 * samples metrics' budget is judged on.
 */
export const TOGETHER = ', loaded together';
/** Fastify with nothing on (logger off, no plugins): the framework's own cost. */
export const FASTIFY_PEER = 'Fastify + zod peer';
/**
 * Fastify with the features the service keeps on, from Fastify's ecosystem (its logger writing an
 * access line, helmet, rate-limit, etag, the request id, no-store): what a team choosing Fastify
 * would deploy. Not one of PEERS: the fastest peer stays the fastest framework with nothing on.
 */
export const FASTIFY_FEATURES_PEER = 'Fastify + zod peer with features on';
/** REST against the Fastify peer with the features on: at least this share of its throughput, on every scenario. */
export const REST_MIN_FEATURES_PEER_THROUGHPUT = 1.2;
export const EXPRESS_PEER = 'Express + zod peer';
export const HONO_PEER = 'Hono + zod-openapi peer';
export const ORPC_PEER = 'oRPC + OpenAPIHandler peer';
export const BASELINE = 'node:http baseline';
/** REST on SQLite: at least this share of the bare baseline's throughput, on every scenario… */
export const REST_MIN_BASELINE_THROUGHPUT = 0.8;
/** …and this share on a get by id, where the bare server's work is least and the service's shows most. */
export const REST_MIN_BASELINE_THROUGHPUT_GET_BY_ID = 0.9;
/** Appended to a target's name when it runs on the service of the before checkout (bench-settings.ts). */
export const BEFORE = ', before';
/** Against that checkout's service, a call may cost at most this many times its CPU there: a change that is not about speed costs none. */
export const BEFORE_MAX_CPU_FACTOR = 1.03;
/**
 * Appended to the names of a target and of its before counterpart for the rounds that load both
 * at once: the samples the before budget is judged on.
 */
export const BESIDE_BEFORE = ', loaded beside before';

/** A streamed batch against the same batch answered at once: at least this share of its calls/s… */
export const STREAM_MIN_THROUGHPUT = 0.8;
/** …at most this many times its CPU per call… */
export const STREAM_MAX_CPU_FACTOR = 1.25;
/** …and at most this many times its p99 latency. */
export const STREAM_MAX_P99_FACTOR = 2;

/** Appended to the service's targets on PostgreSQL (with Redis for the rate limit's counts). */
export const ON_POSTGRES = ', PostgreSQL';
/**
 * Appended to the service's targets on PostgreSQL through Debian's PgBouncer in transaction mode,
 * as it ships but for that: what a managed PostgreSQL's pooled address is, in the service's
 * default settings, as on a direct address.
 */
export const THROUGH_PGBOUNCER = ', PostgreSQL through PgBouncer (transaction mode)';
/** The bare server on PostgreSQL: node:http and pg, the service's statements (named), one key in memory. */
export const BASELINE_POSTGRES = 'node:http + pg baseline';
/**
 * The bare server sending its statements unnamed, through the same PgBouncer as the service's
 * targets there: what the pooler leaves a server with no framework, so the service's ratio to it
 * is the service's own, not the hop's.
 */
export const BASELINE_POSTGRES_THROUGH_PGBOUNCER = `${BASELINE_POSTGRES}, unnamed statements${THROUGH_PGBOUNCER}`;
/** REST through PgBouncer: at least this share of the bare server's throughput through it, on every scenario. */
export const PGBOUNCER_MIN_THROUGHPUT = 0.9;
/** REST on PostgreSQL, in its default settings: at least the bare server's throughput on every scenario, and at most this many times its CPU per call. */
export const POSTGRES_MIN_THROUGHPUT = 1;
export const POSTGRES_MAX_CPU_FACTOR = 1.5;

/**
 * Memory as a ratio to the bare server of the same engine in the same run, since each Node moves
 * the baseline: the service's peak RSS under the load at most this many times the bare server's…
 */
export const SERVICE_MAX_PEAK_RSS_FACTOR = 1.1;
/** …and its RSS once started, before any load, at most the bare server's plus this many MiB. */
export const SERVICE_MAX_IDLE_RSS_EXTRA_MIB = 25;

/** The same contract subset written the way each framework's docs recommend. */
export const PEERS = [FASTIFY_PEER, EXPRESS_PEER, HONO_PEER, ORPC_PEER] as const;
/** The peers REST must match on every scenario (at least 1.0× each one's throughput). */
export const MATCHED_PEERS = [FASTIFY_PEER, HONO_PEER, ORPC_PEER] as const;
export const REST_MIN_PEER_THROUGHPUT = 1;
