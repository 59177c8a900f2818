// What PostgreSQL does per call for the request path's two reads, named (prepared once on the
// connection) and unnamed (parsed and planned on every run), on a database seeded as the bench's:
//
//   node docs/decisions/measure/statement-cost.mjs
//
// Per statement and way: the server process's CPU per call (its /proc utime + stime over CALLS
// calls, one in flight; needs PostgreSQL on this machine) and the client's wall time per call,
// medians of ROUNDS rounds, the two ways alternating; then EXPLAIN ANALYZE's planning and
// execution time of one run. Needs this checkout's bench and packages built.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const self = resolve(import.meta.dirname, '../../..');
const pg = createRequire(join(self, 'bench', 'package.json'))('pg');
const { seedPostgres } = await import(join(self, 'bench/dist/seed-postgres.js'));
const CALLS = Number(process.env.CALLS ?? 2_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const TICKS_PER_SECOND = 100;

const columns = 'id, name, category_id as "categoryId", status';
const STATEMENTS = {
  'page of 100': { text: `select ${columns} from pets where status = $1 and id > $2 order by id limit $3`, values: (n) => ['available', (n * 37) % 5_000, 100] },
  'get by id': { text: `select ${columns} from pets where id = $1`, values: (n) => [1 + ((n * 7919) % 10_000)] },
};
const cpuTicks = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const seeded = await seedPostgres(10_000);
try {
  const client = new pg.Client({ connectionString: seeded.url });
  await client.connect();
  const { rows: [{ pid }] } = await client.query('select pg_backend_pid() as pid');
  const results = {};
  for (const [label, { text, values }] of Object.entries(STATEMENTS)) {
    const samples = { named: { cpu: [], wall: [] }, unnamed: { cpu: [], wall: [] } };
    for (let round = 0; round < ROUNDS; round++) {
      for (const way of round % 2 === 0 ? ['named', 'unnamed'] : ['unnamed', 'named']) {
        const name = way === 'named' ? `m_${label.replaceAll(' ', '_')}` : undefined;
        const ticks = cpuTicks(pid);
        const started = process.hrtime.bigint();
        for (let n = 0; n < CALLS; n++) await client.query({ name, text, values: values(n) });
        const wall = Number(process.hrtime.bigint() - started) / 1e3 / CALLS;
        samples[way].cpu.push(((cpuTicks(pid) - ticks) / TICKS_PER_SECOND) * 1e6 / CALLS);
        samples[way].wall.push(wall);
      }
    }
    const explained = (await client.query(`explain (analyze, summary, format json) ${text}`, values(1))).rows[0]['QUERY PLAN'][0];
    results[label] = {
      'server CPU µs/call, named': Math.round(median(samples.named.cpu)),
      'server CPU µs/call, unnamed': Math.round(median(samples.unnamed.cpu)),
      'wall µs/call, named': Math.round(median(samples.named.wall)),
      'wall µs/call, unnamed': Math.round(median(samples.unnamed.wall)),
      'EXPLAIN planning ms': explained['Planning Time'],
      'EXPLAIN execution ms': explained['Execution Time'],
    };
  }
  await client.end();
  console.table(results);
} finally {
  await seeded.drop();
}
