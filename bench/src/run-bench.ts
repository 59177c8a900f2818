import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_VARIABLES, benchPostgresUrl, benchRedisUrl, benchSettings } from './bench-settings.js';
import { barChart } from './chart.js';
import { type LoadResult, load, median } from './load.js';
import { onOneCore } from './one-core.js';
import { roundOrder } from './round-order.js';
import { BATCHED, BATCH_SIZE, STREAMED, type Scenario, scenarios } from './scenarios.js';
import { copyDatabase, seedDatabase } from './seed.js';
import { seedPostgres } from './seed-postgres.js';
import { startPgBouncer } from '@petstore/core/testing/pgbouncer';
import {
  BASELINE,
  BASELINE_POSTGRES,
  BASELINE_POSTGRES_THROUGH_PGBOUNCER,
  BEFORE,
  BESIDE_BEFORE,
  EXPRESS_PEER,
  FASTIFY_FEATURES_PEER,
  FASTIFY_PEER,
  HONO_PEER,
  ON_POSTGRES,
  ORPC_PEER,
  REST,
  REST_WITH_METRICS,
  THROUGH_PGBOUNCER,
  TOGETHER,
  TRPC,
} from './target-names.js';
import { type ServiceSettings, type TargetKind, type TargetProcess, startTarget } from './target-process.js';
import {
  COMPARED_WITH_BEFORE,
  type Samples,
  beforeVerdicts,
  fastestPeer,
  pgbouncerVerdicts,
  postgresVerdicts,
  ratiosToReferences,
  memoryVerdicts,
  streamVerdicts,
  throughPgBouncerRatios,
  verdicts,
} from './verdicts.js';
import { UNREACHED_QUOTA_PER_MINUTE } from './targets/unreached-quota.js';

const SEEDED = 10_000;
const WARM_UP_SECONDS = 2;
const { beforeCheckout: BEFORE_CHECKOUT, ...chosen } = benchSettings();
const settings = {
  ...chosen,
  // Four more targets: every way of calling the other checkout's service.
  before: BEFORE_CHECKOUT !== undefined,
};
const RESULTS = fileURLToPath(new URL('../results', import.meta.url));

interface Target {
  name: string;
  process: TargetProcess;
  apiKey: string;
  request: (scenario: Scenario) => Scenario['rest'];
  /** Operations per HTTP request: 1, or the batch size. */
  callsPerRequest: number;
}

export interface Row {
  scenario: string;
  target: string;
  'calls/s': number;
  'CPU µs/call': number;
  'p50 ms': number;
  'p99 ms': number;
  '× fastest peer': number;
  '× baseline': number;
  failures: number;
}

/** The ways of calling the service the PostgreSQL targets run. */
const ON_POSTGRES_CALLS = [REST, TRPC, BATCHED];

// A quota the load never reaches: the service pays for counting without refusing anything.
const UNREACHED_QUOTA: ServiceSettings = { rateLimitPerMinute: String(UNREACHED_QUOTA_PER_MINUTE) };

const ratioColumns = (samples: Samples, scenario: string, target: string) => {
  const { fastestPeer: peer, baseline } = ratiosToReferences(samples, scenario, target);
  return { '× fastest peer': Number(peer.toFixed(2)), '× baseline': Number(baseline.toFixed(2)) };
};

const folder = mkdtempSync(join(tmpdir(), 'petstore-bench-'));
// Two databases on the same server, seeded alike: the service's and the bare pg server's.
const postgres = settings.postgres ? await seedPostgres(SEEDED) : undefined;
const postgresForBaseline = settings.postgres ? await seedPostgres(SEEDED) : undefined;
// And two more, reached through PgBouncer in transaction mode, as shipped but for that: the
// service's, and the bare pg server's sending its statements unnamed, as it must there.
const postgresForPgBouncer = settings.postgres ? await seedPostgres(SEEDED) : undefined;
const postgresForBaselineThroughPgBouncer = settings.postgres ? await seedPostgres(SEEDED) : undefined;
const pgbouncer = settings.postgres ? await startPgBouncer({ server: benchPostgresUrl(), poolMode: 'transaction' }) : undefined;
try {
  const template = join(folder, 'template.db');
  const { apiKey } = await seedDatabase(template, SEEDED);
  const started = async (kind: TargetKind, service: ServiceSettings = {}, copy: string = kind, apiRoot?: string) => {
    const file = join(folder, `${copy}.db`);
    copyDatabase(template, file);
    return startTarget(kind, { database: { file }, apiKey, service: { ...UNREACHED_QUOTA, ...service } }, apiRoot);
  };
  const service = await started('service');
  // The other checkout's service, started as that checkout starts it, with this one's environment.
  const before = BEFORE_CHECKOUT ? await started('service', {}, 'service-before', join(BEFORE_CHECKOUT, 'apps', 'api')) : undefined;
  const withMetrics = await started('service', { metricsPort: '0' }, 'service-with-metrics');
  const fastify = await started('fastify-peer');
  const fastifyWithFeatures = await started('fastify-features-peer');
  const express = await started('express-peer');
  const hono = await started('hono-peer');
  const orpc = await started('orpc-peer');
  const bare = await started('bare-node');
  // The production shape: PostgreSQL for the data, Redis for the rate limit's counts; in the
  // default settings, as a user runs it, directly and through PgBouncer in transaction mode.
  const onPostgresAt = (url: string, apiKey: string, service: ServiceSettings = {}) =>
    startTarget('service', {
      database: { url },
      apiKey,
      service: { redisUrl: benchRedisUrl(), redisKeyPrefix: `bench:${randomBytes(6).toString('hex')}:`, ...UNREACHED_QUOTA, ...service },
    });
  const onPostgres = postgres ? await onPostgresAt(postgres.url, postgres.apiKey) : undefined;
  const throughPgBouncer = postgresForPgBouncer && pgbouncer ? await onPostgresAt(pgbouncer.through(postgresForPgBouncer.url), postgresForPgBouncer.apiKey) : undefined;
  const barePostgres = postgresForBaseline
    ? await startTarget('bare-pg', { database: { url: postgresForBaseline.url }, apiKey: postgresForBaseline.apiKey })
    : undefined;
  const barePostgresThroughPgBouncer =
    postgresForBaselineThroughPgBouncer && pgbouncer
      ? await startTarget('bare-pg-unnamed', {
          database: { url: pgbouncer.through(postgresForBaselineThroughPgBouncer.url) },
          apiKey: postgresForBaselineThroughPgBouncer.apiKey,
        })
      : undefined;
  // Each server's RSS once started, every one of them idle: what it holds before any request.
  const idleRssMiB = new Map(
    [service, bare, ...(onPostgres ? [onPostgres] : []), ...(barePostgres ? [barePostgres] : [])].map((server) => [server, Math.round(server.rssMiB())]),
  );
  const memoryOf = (server: TargetProcess) => ({ idleMiB: idleRssMiB.get(server) ?? Number.NaN, peakMiB: Math.round(server.peakRssMiB()) });
  const rest = (scenario: Scenario) => scenario.rest;
  // The ways of calling the service, by the name of their target.
  const calls: Record<string, Pick<Target, 'request' | 'callsPerRequest'>> = {
    [REST]: { request: rest, callsPerRequest: 1 },
    [TRPC]: { request: (scenario) => scenario.trpc, callsPerRequest: 1 },
    [BATCHED]: { request: (scenario) => scenario.trpcBatched, callsPerRequest: BATCH_SIZE },
    [STREAMED]: { request: (scenario) => scenario.trpcStreamed, callsPerRequest: BATCH_SIZE },
  };
  const serviceTargets = (names: readonly string[], suffix: string, server: TargetProcess, key: string): Target[] =>
    names.map((name) => {
      const call = calls[name];
      if (!call) throw new Error(`no way of calling the service named ${name}`);
      return { name: `${name}${suffix}`, process: server, apiKey: key, ...call };
    });
  const targets: Target[] = [
    ...serviceTargets([REST, TRPC, BATCHED, STREAMED], '', service, apiKey),
    // The earlier build serves every kind of call this one's service serves, streamed batches
    // included, so both processes carry the same load; COMPARED_WITH_BEFORE are judged.
    ...(before ? serviceTargets([REST, TRPC, BATCHED, STREAMED], BEFORE, before, apiKey) : []),
    { name: REST_WITH_METRICS, process: withMetrics, apiKey, request: rest, callsPerRequest: 1 },
    { name: FASTIFY_PEER, process: fastify, apiKey, request: rest, callsPerRequest: 1 },
    { name: FASTIFY_FEATURES_PEER, process: fastifyWithFeatures, apiKey, request: rest, callsPerRequest: 1 },
    { name: EXPRESS_PEER, process: express, apiKey, request: rest, callsPerRequest: 1 },
    { name: HONO_PEER, process: hono, apiKey, request: rest, callsPerRequest: 1 },
    { name: ORPC_PEER, process: orpc, apiKey, request: rest, callsPerRequest: 1 },
    { name: BASELINE, process: bare, apiKey, request: rest, callsPerRequest: 1 },
    ...(onPostgres && postgres ? serviceTargets(ON_POSTGRES_CALLS, ON_POSTGRES, onPostgres, postgres.apiKey) : []),
    ...(throughPgBouncer && postgresForPgBouncer ? serviceTargets(ON_POSTGRES_CALLS, THROUGH_PGBOUNCER, throughPgBouncer, postgresForPgBouncer.apiKey) : []),
    ...(barePostgres && postgresForBaseline
      ? [{ name: BASELINE_POSTGRES, process: barePostgres, apiKey: postgresForBaseline.apiKey, request: rest, callsPerRequest: 1 }]
      : []),
    ...(barePostgresThroughPgBouncer && postgresForBaselineThroughPgBouncer
      ? [
          {
            name: BASELINE_POSTGRES_THROUGH_PGBOUNCER,
            process: barePostgresThroughPgBouncer,
            apiKey: postgresForBaselineThroughPgBouncer.apiKey,
            request: rest,
            callsPerRequest: 1,
          },
        ]
      : []),
  ];
  const targetNamed = (name: string) => {
    const target = targets.find((candidate) => candidate.name === name);
    if (!target) throw new Error(`no target named ${name}`);
    return target;
  };
  // Budgets of a few per cent are smaller than the machine's speed moves between rounds seconds
  // apart: for each, the two targets it compares are also loaded at once, half the connections
  // each, so every second of the machine's weighs on both. Metrics on against off; each way of
  // calling the service against the same way on the before checkout's.
  const pairs: Target[][] = [
    [REST, REST_WITH_METRICS].map((name) => ({ ...targetNamed(name), name: `${name}${TOGETHER}` })),
    ...(before
      ? COMPARED_WITH_BEFORE.map((name) => [name, `${name}${BEFORE}`].map((each) => ({ ...targetNamed(each), name: `${each}${BESIDE_BEFORE}` })))
      : []),
  ];
  // Every target's warm-up and rounds, then the rounds that load each pair at once.
  const minutes = (scenarios(SEEDED).length * (targets.length * (WARM_UP_SECONDS + settings.rounds * settings.seconds) + pairs.length * settings.rounds * settings.seconds)) / 60;
  process.stderr.write(
    `Node ${process.version}. ${targets.length} targets, ${settings.rounds} rounds of ${settings.seconds} s at ${settings.connections} connections: about ${Math.ceil(minutes)} min. ` +
      `PostgreSQL targets ${settings.postgres ? 'on' : `off (${BENCH_VARIABLES.postgres}=1 adds them)`}. ` +
      `Before targets ${settings.before ? 'on' : `off (${BENCH_VARIABLES.before}=<another checkout, installed and built> adds them)`}.\n`,
  );
  const run = (target: Target, scenario: Scenario, seconds: number, connections = settings.connections) =>
    load({
      url: target.process.url,
      cpuSeconds: () => target.process.cpuSeconds(),
      apiKey: target.apiKey,
      request: target.request(scenario),
      connections,
      seconds,
    });
  const togetherConnections = Math.max(1, Math.round(settings.connections / 2));

  const rows: Row[] = [];
  const samples: Samples = {};
  for (const scenario of scenarios(SEEDED)) {
    const runs = new Map<Target, LoadResult[]>(targets.map((target) => [target, []]));
    for (const target of targets) await run(target, scenario, WARM_UP_SECONDS); // not recorded
    // Every round runs every target once, so a noisy moment lands on all of them and each round's
    // ratios compare runs made seconds apart; the order turns round each round (roundOrder).
    for (let round = 1; round <= settings.rounds; round++) {
      for (const target of roundOrder(targets, round)) {
        const result = await run(target, scenario, settings.seconds);
        runs.get(target)?.push(result);
        const failed = result.failureKinds && ` (failed: ${result.failureKinds})`;
        process.stderr.write(`${scenario.name} | ${target.name} | round ${round}: ${Math.round(result.requestsPerSecond)} req/s${failed}\n`);
      }
    }
    for (const pair of pairs) {
      for (const target of pair) runs.set(target, []);
      // Both on one core, the load on another (one-core.ts), as the side-by-side measure runs them.
      await onOneCore(
        pair.map((target) => target.process.pid),
        async () => {
          for (let round = 1; round <= settings.rounds; round++) {
            // Whose load starts first turns round each round, as the targets' order does.
            const ordered = roundOrder(pair, round);
            const results = await Promise.all(ordered.map((target) => run(target, scenario, settings.seconds, togetherConnections)));
            ordered.forEach((target, index) => {
              const result = results[index];
              if (result) runs.get(target)?.push(result);
            });
            process.stderr.write(`${scenario.name} | ${pair.map((target) => target.name).join(' and ')} | round ${round}\n`);
          }
        },
      );
    }
    samples[scenario.name] = Object.fromEntries(
      [...targets, ...pairs.flat()].map((target) => [
        target.name,
        (runs.get(target) ?? []).map((result) => ({
          callsPerSecond: result.requestsPerSecond * target.callsPerRequest,
          cpuMicrosPerCall: result.cpuMicrosPerRequest / target.callsPerRequest,
        })),
      ]),
    );
    for (const target of targets) {
      const results = runs.get(target) ?? [];
      const callsPerSecond = median(results.map((result) => result.requestsPerSecond)) * target.callsPerRequest;
      rows.push({
        scenario: scenario.name,
        target: target.name,
        'calls/s': Math.round(callsPerSecond),
        'CPU µs/call': Math.round(median(results.map((result) => result.cpuMicrosPerRequest)) / target.callsPerRequest),
        'p50 ms': median(results.map((result) => result.p50Ms)),
        'p99 ms': median(results.map((result) => result.p99Ms)),
        ...ratioColumns(samples, scenario.name, target.name),
        failures: results.reduce((sum, result) => sum + result.failures, 0),
      });
    }
  }

  const peakRssMiB = {
    'apps/api': Math.round(service.peakRssMiB()),
    ...(before && { 'apps/api, before': Math.round(before.peakRssMiB()) }),
    ...(onPostgres && { 'apps/api, PostgreSQL': Math.round(onPostgres.peakRssMiB()) }),
    ...(throughPgBouncer && { 'apps/api, PostgreSQL through PgBouncer': Math.round(throughPgBouncer.peakRssMiB()) }),
    [FASTIFY_PEER]: Math.round(fastify.peakRssMiB()),
    [FASTIFY_FEATURES_PEER]: Math.round(fastifyWithFeatures.peakRssMiB()),
    [EXPRESS_PEER]: Math.round(express.peakRssMiB()),
    [HONO_PEER]: Math.round(hono.peakRssMiB()),
    [ORPC_PEER]: Math.round(orpc.peakRssMiB()),
    [BASELINE]: Math.round(bare.peakRssMiB()),
    ...(barePostgres && { [BASELINE_POSTGRES]: Math.round(barePostgres.peakRssMiB()) }),
    ...(barePostgresThroughPgBouncer && { [BASELINE_POSTGRES_THROUGH_PGBOUNCER]: Math.round(barePostgresThroughPgBouncer.peakRssMiB()) }),
  };
  const memory = {
    sqlite: { service: memoryOf(service), bare: memoryOf(bare) },
    ...(onPostgres && barePostgres && { postgres: { service: memoryOf(onPostgres), bare: memoryOf(barePostgres) } }),
  };
  const servers = [
    service,
    ...(before ? [before] : []),
    withMetrics,
    fastify,
    fastifyWithFeatures,
    express,
    hono,
    orpc,
    bare,
    ...(onPostgres ? [onPostgres] : []),
    ...(throughPgBouncer ? [throughPgBouncer] : []),
    ...(barePostgres ? [barePostgres] : []),
    ...(barePostgresThroughPgBouncer ? [barePostgresThroughPgBouncer] : []),
  ];
  await Promise.all(servers.map((target) => target.stop()));

  console.table(rows);
  console.log(`Ratios are medians of per-round ratios of calls/s. Fastest peer: ${Object.keys(samples).map((scenario) => `${scenario} → ${fastestPeer(samples, scenario)}`).join('; ')}.`);
  if (!settings.postgres) console.log(`PostgreSQL targets not run (${BENCH_VARIABLES.postgres}=1 adds them).`);
  console.log('Peak RSS (MiB):', peakRssMiB);
  console.log('The service against the bare server, idle and at its peak (MiB):', memory);
  const checks = [
    ...verdicts(samples),
    ...memoryVerdicts('SQLite', memory.sqlite.service, memory.sqlite.bare),
    ...(memory.postgres ? memoryVerdicts('PostgreSQL', memory.postgres.service, memory.postgres.bare) : []),
    ...streamVerdicts(samples, rows),
    ...(before ? beforeVerdicts(samples) : []),
    ...(settings.postgres ? postgresVerdicts(samples) : []),
    ...(settings.postgres ? pgbouncerVerdicts(samples) : []),
  ];
  for (const check of checks) console.log(`${check.met ? 'MET    ' : 'NOT MET'}  ${check.target}: ${check.figures}`);
  const pgbouncerRatios = settings.postgres ? throughPgBouncerRatios(samples, ON_POSTGRES_CALLS) : [];
  for (const { scenario, target, throughput, cpuPerCall } of pgbouncerRatios) {
    console.log(`${target}${THROUGH_PGBOUNCER} ÷ ${BASELINE_POSTGRES_THROUGH_PGBOUNCER}, ${scenario}: calls/s ${throughput.toFixed(2)}×, CPU per call ${cpuPerCall.toFixed(2)}×`);
  }

  mkdirSync(RESULTS, { recursive: true });
  const report = { date: new Date().toISOString(), node: process.version, seeded: SEEDED, settings, peakRssMiB, memory, rows, targets: checks, pgbouncerRatios, samples };
  writeFileSync(join(RESULTS, 'bench.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(RESULTS, 'bench.svg'), barChart(rows));
  console.log('Wrote bench/results/bench.json and bench/results/bench.svg');
} finally {
  rmSync(folder, { recursive: true, force: true });
  await pgbouncer?.stop();
  await postgres?.drop();
  await postgresForBaseline?.drop();
  await postgresForPgBouncer?.drop();
  await postgresForBaselineThroughPgBouncer?.drop();
}
