// Two builds of the service side by side on one core, each on its own copy of the same data: CPU
// per request of the first over the second, per slice of load, for the bench's scenarios.
//
//   node docs/decisions/measure/service-side-by-side.mjs <other checkout> [<this checkout>]
//
// Both checkouts installed and built; this checkout's bench (bench/dist) seeds, starts and loads
// them. Both services share one core and this process (the load) has another, as the bench's
// pairs run (bench/src/one-core.ts). Each slice loads both at once with 16 connections; the ratio of a
// slice is CPU µs per request of the first ÷ the second, and a scenario prints their median.
// Run the same build against itself (pass this checkout twice) to see what the machine's noise
// alone gives: on PostgreSQL one run of 10 slices has ranged 0.89-1.05 against itself, so compare
// the mean of several runs with that of as many self-runs (2026-11-28-postgres-side-by-side.md).
//
// ENGINE=postgres|sqlite (default postgres); ONLY=<part of a scenario's name>; KIND=REST,tRPC,batch,stream;
// SLICES (10), SECONDS (3); FIRST=second starts the second build first; SWAP=1 gives each the other copy;
// FIRST_SETTINGS, SECOND_SETTINGS: more of each service's settings, as JSON by their names in its
// configuration (`{"databasePoolMode":"session"}` on a build that has that setting), to compare one
// build with itself set otherwise. THROUGH=pgbouncer (PostgreSQL): both through Debian's PgBouncer
// in transaction mode, as it ships but for that (this checkout's packages/core built).
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const [other, self = '.'] = process.argv.slice(2).map((path) => resolve(path));
if (!other) throw new Error('usage: service-side-by-side.mjs <other checkout> [<this checkout>]');
const bench = resolve(import.meta.dirname, '../../../bench');
const { startTarget } = await import(join(bench, 'dist/target-process.js'));
/** A process's CPU so far, in clock ticks of 1/100 s, user and system apart. */
const cpuTicksOf = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: Number(fields[11]), system: Number(fields[12]) };
};
const { onOneCore } = await import(join(bench, 'dist/one-core.js'));
const { scenarios } = await import(join(bench, 'dist/scenarios.js'));
const autocannon = createRequire(join(bench, 'package.json'))('autocannon');
const SEEDED = 10_000;
const SLICES = Number(process.env.SLICES ?? 10);
const SECONDS = Number(process.env.SECONDS ?? 3);

/** Two databases with the same rows and one key each. */
const twoCopies = async () => {
  if (process.env.ENGINE === 'sqlite') {
    const { seedDatabase, copyDatabase } = await import(join(bench, 'dist/seed.js'));
    const dir = mkdtempSync(join(tmpdir(), 'side-by-side-'));
    const { apiKey } = await seedDatabase(join(dir, 'seed.db'), SEEDED);
    return ['a', 'b'].map((name) => {
      copyDatabase(join(dir, 'seed.db'), join(dir, `${name}.db`));
      return { database: { file: join(dir, `${name}.db`) }, apiKey, drop: async () => undefined };
    });
  }
  const { seedPostgres } = await import(join(bench, 'dist/seed-postgres.js'));
  return Promise.all([0, 1].map(async () => {
    const { url, apiKey, drop } = await seedPostgres(SEEDED);
    return { database: { url }, apiKey, drop };
  }));
};

const copies = await twoCopies();
const pgbouncer = process.env.THROUGH === 'pgbouncer'
  ? await (await import(join(bench, '../packages/core/dist/testing/pgbouncer.js'))).startPgBouncer({ server: copies[0].database.url, poolMode: 'transaction' })
  : undefined;
if (pgbouncer) for (const copy of copies) copy.database = { url: pgbouncer.through(copy.database.url) };
const [mine, theirs] = process.env.SWAP === '1' ? [copies[1], copies[0]] : copies;
const settingsOf = (variable) => JSON.parse(process.env[variable] ?? '{}');
const start = (checkout, { database, apiKey }, settings) =>
  startTarget('service', { database, apiKey, service: { rateLimitPerMinute: '999999999', logLevel: 'info', ...settings } }, join(checkout, 'apps/api'));
const startFirst = () => start(self, mine, settingsOf('FIRST_SETTINGS'));
const startSecond = () => start(other, theirs, settingsOf('SECOND_SETTINGS'));
const [first, second] = process.env.FIRST === 'second'
  ? await startSecond().then(async (b) => [await startFirst(), b])
  : await startFirst().then(async (a) => [a, await startSecond()]);

const load = (target, request, apiKey, duration) =>
  new Promise((done, fail) => {
    const headers = { ...request.headers, authorization: `Bearer ${apiKey}` };
    autocannon({ url: target.url, connections: 16, duration, requests: [{ ...request, headers }] }, (error, result) => (error ? fail(error) : done(result)));
  });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
const KINDS = { REST: 'rest', tRPC: 'trpc', batch: 'trpcBatched', stream: 'trpcStreamed' };

await onOneCore([first.pid, second.pid], async () => {
  for (const scenario of scenarios(SEEDED)) {
    if (process.env.ONLY && !scenario.name.includes(process.env.ONLY)) continue;
    for (const kind of (process.env.KIND ?? 'REST,tRPC,batch,stream').split(',')) {
      const request = scenario[KINDS[kind]];
      await Promise.all([load(first, request, mine.apiKey, 1), load(second, request, theirs.apiKey, 1)]);
      const ratios = [];
      const perRequest = { first: { user: [], system: [] }, second: { user: [], system: [] } };
      for (let slice = 0; slice < SLICES; slice++) {
        const before = [cpuTicksOf(first.pid), cpuTicksOf(second.pid)];
        // Whose load starts first alternates, so neither is always the one served first.
        const loads = [load(first, request, mine.apiKey, SECONDS), load(second, request, theirs.apiKey, SECONDS)];
        const [a, b] = slice % 2 === 0 ? await Promise.all(loads) : (await Promise.all(loads.reverse())).reverse();
        const after = [cpuTicksOf(first.pid), cpuTicksOf(second.pid)];
        const µs = (index, field, requests) => ((after[index][field] - before[index][field]) * 10_000) / requests;
        perRequest.first.user.push(µs(0, 'user', a.requests.total));
        perRequest.first.system.push(µs(0, 'system', a.requests.total));
        perRequest.second.user.push(µs(1, 'user', b.requests.total));
        perRequest.second.system.push(µs(1, 'system', b.requests.total));
        ratios.push((µs(0, 'user', a.requests.total) + µs(0, 'system', a.requests.total)) / (µs(1, 'user', b.requests.total) + µs(1, 'system', b.requests.total)));
      }
      const figures = (side) => `${mean(side.user).toFixed(1)} user + ${mean(side.system).toFixed(1)} system µs`;
      console.log(`${scenario.name} ${kind}: ${median(ratios).toFixed(3)} (${figures(perRequest.first)} / ${figures(perRequest.second)}) [${ratios.map((r) => r.toFixed(3)).join(' ')}]`);
    }
  }
});
await Promise.all([first.stop(), second.stop()]);
await pgbouncer?.stop();
await Promise.all(copies.map(({ drop }) => drop()));
