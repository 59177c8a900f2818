// The service on PostgreSQL against the bench's bare node:http + pg server, one process each, in
// alternating rounds (whose turn is first flips each round), as the bench's PostgreSQL targets run:
// calls/s and CPU per call of REST over the bare server's, medians of per-round ratios.
//
//   node docs/decisions/measure/postgres-against-bare.mjs [<checkout, installed and built>]
//
// The service is the checkout's (this one's unless given), started as `pnpm start` starts it, in
// its default settings but for the rate limit (counted in Redis at BENCH_REDIS_URL, never reached),
// and SERVICE_SETTINGS (JSON, by the names in its configuration: `{"databasePoolMode":"session"}`
// on a build that has that setting). Each on a database of its own of 10,000 animals on
// BENCH_POSTGRES_URL, dropped at the end.
// THROUGH=pgbouncer: both through Debian's PgBouncer in transaction mode (as it ships but for
// that), the bare server then sending its statements unnamed, as it must there; directly, named.
// Also PostgreSQL's own CPU per call for each side: the /proc utime + stime of the server processes
// on that side's database (pg_stat_activity) over each round, so PostgreSQL on this machine.
// ROUNDS (5), SECONDS (5), CONNECTIONS (32), ONLY=<part of a scenario's name>. Needs this
// checkout's bench and packages built.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const self = resolve(import.meta.dirname, '../../..');
const checkout = resolve(process.argv[2] ?? self);
const bench = join(self, 'bench/dist');
const { startTarget } = await import(join(bench, 'target-process.js'));
const { seedPostgres } = await import(join(bench, 'seed-postgres.js'));
const { scenarios } = await import(join(bench, 'scenarios.js'));
const { load, median } = await import(join(bench, 'load.js'));
const { benchPostgresUrl, benchRedisUrl } = await import(join(bench, 'bench-settings.js'));
const { UNREACHED_QUOTA_PER_MINUTE } = await import(join(bench, 'targets/unreached-quota.js'));
const { startPgBouncer } = await import(join(self, 'packages/core/dist/testing/pgbouncer.js'));

const pg = createRequire(join(self, 'bench', 'package.json'))('pg');
const SEEDED = 10_000;
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const pooled = process.env.THROUGH === 'pgbouncer';
/** A start may take long on a machine other work keeps busy. */
const START_MS = 120_000;

const forService = await seedPostgres(SEEDED);
const forBare = await seedPostgres(SEEDED);
const pgbouncer = pooled ? await startPgBouncer({ server: benchPostgresUrl(), poolMode: 'transaction' }) : undefined;
const address = (url) => (pgbouncer ? pgbouncer.through(url) : url);
const admin = new pg.Client({ connectionString: benchPostgresUrl() });
await admin.connect();
const ticksOf = (pid) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
};
/** CPU ticks so far of each server process on `url`'s database. */
const backendTicks = async (url) => {
  const { rows } = await admin.query('select pid from pg_stat_activity where datname = $1', [new URL(url).pathname.slice(1)]);
  return new Map(rows.map(({ pid }) => [pid, ticksOf(pid)]));
};
/** Ticks spent since `before` by the processes on `url`'s database (a process new since then: all of its). */
const backendTicksSince = async (url, before) => {
  let spent = 0;
  for (const [pid, ticks] of await backendTicks(url)) spent += ticks - (before.get(pid) ?? 0);
  return spent;
};
const started = [];
try {
  const service = await startTarget(
    'service',
    {
      database: { url: address(forService.url) },
      apiKey: forService.apiKey,
      service: {
        redisUrl: benchRedisUrl(),
        redisKeyPrefix: `measure:${randomBytes(6).toString('hex')}:`,
        rateLimitPerMinute: String(UNREACHED_QUOTA_PER_MINUTE),
        ...JSON.parse(process.env.SERVICE_SETTINGS ?? '{}'),
      },
    },
    join(checkout, 'apps/api'),
    START_MS,
  );
  started.push(service);
  const bare = await startTarget(pooled ? 'bare-pg-unnamed' : 'bare-pg', { database: { url: address(forBare.url) }, apiKey: forBare.apiKey }, undefined, START_MS);
  started.push(bare);
  const sides = [
    { name: 'service', process: service, apiKey: forService.apiKey, database: forService.url },
    { name: 'bare', process: bare, apiKey: forBare.apiKey, database: forBare.url },
  ];
  const run = (side, scenario, seconds) =>
    load({ url: side.process.url, cpuSeconds: () => side.process.cpuSeconds(), apiKey: side.apiKey, request: scenario.rest, connections: CONNECTIONS, seconds });
  const table = {};
  for (const scenario of scenarios(SEEDED).filter((each) => each.name.includes(process.env.ONLY ?? ''))) {
    for (const side of sides) await run(side, scenario, 2); // warm-up, not recorded
    const ratios = { throughput: [], cpu: [] };
    const postgresCpu = { service: [], bare: [] };
    const failures = { service: 0, bare: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const results = {};
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const before = await backendTicks(side.database);
        results[side.name] = await run(side, scenario, SECONDS);
        const requests = results[side.name].requestsPerSecond * SECONDS;
        postgresCpu[side.name].push(((await backendTicksSince(side.database, before)) * 10_000) / requests);
        failures[side.name] += results[side.name].failures;
      }
      ratios.throughput.push(results.service.requestsPerSecond / results.bare.requestsPerSecond);
      ratios.cpu.push(results.service.cpuMicrosPerRequest / results.bare.cpuMicrosPerRequest);
      process.stderr.write(`${scenario.name} round ${round + 1}: service ${Math.round(results.service.requestsPerSecond)} req/s, bare ${Math.round(results.bare.requestsPerSecond)} req/s\n`);
    }
    table[scenario.name] = {
      'calls/s ÷ bare': Number(median(ratios.throughput).toFixed(2)),
      'CPU per call ÷ bare': Number(median(ratios.cpu).toFixed(2)),
      'per round': ratios.throughput.map((ratio) => ratio.toFixed(2)).join(' '),
      failures: `${failures.service} / ${failures.bare}`,
      'PostgreSQL CPU µs/call, service / bare': `${Math.round(median(postgresCpu.service))} / ${Math.round(median(postgresCpu.bare))}`,
    };
  }
  console.log(`${checkout}, ${pooled ? 'both through PgBouncer (transaction mode), the bare server unnamed' : 'directly, the bare server named'}; ${ROUNDS} rounds of ${SECONDS} s at ${CONNECTIONS} connections`);
  console.table(table);
} finally {
  for (const each of started) await each.stop();
  await admin.end();
  await pgbouncer?.stop();
  await forService.drop();
  await forBare.drop();
}
