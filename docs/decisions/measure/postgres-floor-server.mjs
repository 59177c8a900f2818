// Where a get by id on PostgreSQL spends what the bare pg server does not, each variant a server of
// its own for cpu-side-by-side.mjs, each on its own database of 10,000 animals seeded by the
// bench's own seeding on the PostgreSQL at BENCH_POSTGRES_URL (dropped when the run ends):
//   bare      the bench's bare node:http + pg server's get by id: a pool of 10, the named
//             statement, the held key compared, the JSON body
//   storage   bare's HTTP, with the service's storage (`openPostgresDatabase`, `pets.findById`)
//   pipelined1, pipelined2, pipelined4
//             bare, its statement sent on 1, 2 or 4 connections in pg's pipeline mode instead of
//             through the pool
//   service   the service itself, from its build, its rate limit counted in the process
//   redis     the service with its rate limit shared through Redis (BENCH_REDIS_URL), as the bench runs it
// Run from the repository, after the build, from `bench/`:
//   cd bench && node ../docs/decisions/measure/cpu-side-by-side.mjs ../docs/decisions/measure/postgres-floor-server.mjs bare storage service redis
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';

const benchRequire = createRequire(new URL('../../../bench/package.json', import.meta.url));
const pg = benchRequire('pg');
const { openPostgresDatabase } = await import(new URL('../../../packages/core/dist/index.js', import.meta.url).href);
const { createLogger, readConfig, startServer } = await import(new URL('../../../apps/api/dist/index.js', import.meta.url).href);
const { seedPostgres } = await import(new URL('../../../bench/dist/seed-postgres.js', import.meta.url).href);
const { benchRedisUrl } = await import(new URL('../../../bench/dist/bench-settings.js', import.meta.url).href);

const variant = process.argv[2];
const seeded = await seedPostgres(10_000);
const KEY = seeded.apiKey;
// The bench's own key check, which every peer and bare server runs, handed this key as the bench hands it.
const { handedEnvironment } = await import(new URL('../../../bench/dist/targets/ready.js', import.meta.url).href);
Object.assign(process.env, handedEnvironment({ url: seeded.url }, KEY));
const { holdsKey } = await import(new URL('../../../bench/dist/targets/held-key.js', import.meta.url).href);

const listening = (findById) =>
  new Promise((resolve) => {
    const server = createServer((req, res) => {
      if (!holdsKey(req.headers.authorization)) return res.writeHead(401).end();
      findById(Number(req.url.slice('/v1/pets/'.length))).then((pet) => {
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(pet));
      });
    });
    server.listen(0, '127.0.0.1', () => {
      resolve(server.address().port);
    });
  });

/** The bare server's one statement, as the bench's bare pg server sends it. */
const BY_ID = 'select id, name, category_id as "categoryId", status from pets where id = $1';
const bare = () => {
  pg.types.setTypeParser(pg.types.builtins.INT8, Number);
  const pool = new pg.Pool({ connectionString: seeded.url, max: 10 });
  // Dropping the database at the end ends its connections: not a failure of the measurement.
  pool.on('error', () => {});
  return listening(async (id) => (await pool.query({ name: 'by_id', text: BY_ID, values: [id] })).rows[0]);
};
const storage = async () => {
  const db = await openPostgresDatabase(seeded.url);
  return listening((id) => db.pets.findById(id));
};
const service = async (more = {}) => {
  const config = readConfig({ DATABASE_URL: seeded.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '999999999', ...more });
  return (await startServer(config, createLogger(config.logLevel))).port;
};
const redis = () => service({ REDIS_URL: benchRedisUrl(), REDIS_KEY_PREFIX: `measure:${randomBytes(6).toString('hex')}:` });

const pipelined = async (connections) => {
  pg.types.setTypeParser(pg.types.builtins.INT8, Number);
  const clients = [];
  for (let index = 0; index < connections; index++) {
    const client = new pg.Client({ connectionString: seeded.url, pipeline: true });
    client.on('error', () => {});
    await client.connect();
    clients.push(client);
  }
  let next = 0;
  return listening(async (id) => (await clients[next++ % connections].query({ name: 'by_id', text: BY_ID, values: [id] })).rows[0]);
};
const variants = { pipelined1: () => pipelined(1), pipelined2: () => pipelined(2), pipelined4: () => pipelined(4), bare, storage, service: () => service(), redis };
const start = variants[variant];
if (!start) throw new Error(`no variant ${variant}; one of ${Object.keys(variants).join(', ')}`);
const port = await start();
process.send({ port, request: { method: 'GET', path: '/v1/pets/4242', headers: { Authorization: `Bearer ${KEY}` }, status: 200 } });
process.on('message', () => process.send(process.cpuUsage()));
const end = () => {
  seeded.drop().finally(() => process.exit());
};
process.once('disconnect', end);
process.once('SIGTERM', end);
