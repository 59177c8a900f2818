// Issue 58's four ways a fleet runs PostgreSQL, tried on the built service of a checkout:
//
//   node docs/decisions/measure/pooler-scenarios.mjs <checkout, installed and built>
//
// 1. Behind Debian's PgBouncer as shipped (session mode, nothing in ignore_startup_parameters):
//    does the service start, does `keys create` work?
// 2. Behind it in transaction mode (IGNORE=statement_timeout adds that to the list, as a service
//    that sends it needs): two instances, 32 keep-alive clients for SECONDS (15), creates, lists
//    and gets by id; then every acknowledged create read back.
// 3. The same load behind it in session mode (with IGNORE as above).
// 4. Four instances on a cluster of its own with max_connections = 30, the same load.
// Each load prints its answers by status, and for its 503s and 500s the causes the instances'
// logs give (a 503 with no line that says why counts as "no cause logged").
// Needs root or the postgres user (PgBouncer and the cluster run as postgres), and this checkout's
// packages/core built (its PgBouncer starter).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';

const pg = createRequire(join(resolve(import.meta.dirname, '../../../bench'), 'package.json'))('pg');
const [checkout] = process.argv.slice(2).map((path) => resolve(path));
if (!checkout) throw new Error('usage: pooler-scenarios.mjs <checkout>');
const self = resolve(import.meta.dirname, '../../..');
const { startPgBouncer } = await import(join(self, 'packages/core/dist/testing/pgbouncer.js'));
const SECONDS = Number(process.env.SECONDS ?? 15);
const IGNORE = process.env.IGNORE ? { ignore_startup_parameters: process.env.IGNORE } : {};
const SERVER = 'postgres://postgres@127.0.0.1:5432/test';
const api = join(checkout, 'apps/api');

const freePort = () => new Promise((done) => { const probe = createServer().listen(0, '127.0.0.1', () => { const { port } = probe.address(); probe.close(() => done(port)); }); });
const asPostgres = () => (process.getuid() === 0 ? { uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) } : {});

const withClient = async (url, work) => { const client = new pg.Client({ connectionString: url }); await client.connect(); try { return await work(client); } finally { await client.end(); } };
const scratch = async (server = SERVER) => {
  const name = `pooler_${Math.random().toString(16).slice(2, 10)}`;
  await withClient(server, (client) => client.query(`create database ${name}`));
  const url = new URL(server); url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => withClient(server, (client) => client.query(`drop database if exists ${name} with (force)`)) };
};

/** The checkout's service as `pnpm start` runs it; its log kept. */
const startService = (env) => new Promise((done, fail) => {
  const child = spawn(process.execPath, ['--max-old-space-size=128', '--max-semi-space-size=4', 'dist/main.js'], {
    cwd: api, env: { ...process.env, PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '100000000', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const read = (chunk) => {
    log += chunk.toString();
    const port = /"msg":"Petstore is listening"/.test(log) && /"port":(\d+)/.exec(log)?.[1];
    if (port) done({ url: `http://127.0.0.1:${port}`, key: /^ {2}(pst_\S+)$/m.exec(log)?.[1], log: () => log, stop: () => { child.kill('SIGTERM'); return new Promise((ended) => child.once('exit', ended)); } });
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  child.once('exit', (code) => fail(new Error(`exited ${code}: ${log.split('\n').filter(Boolean).slice(-2).join(' | ').slice(0, 300)}`)));
});

const send = (agent, url, key, id, method, path, body) => new Promise((done) => {
  const req = request(`${url}${path}`, { method, agent, headers: { Authorization: `Bearer ${key}`, 'X-Request-Id': id, ...(body && { 'Content-Type': 'application/json' }) } }, (res) => {
    let text = ''; res.on('data', (chunk) => (text += chunk)); res.on('end', () => done({ status: res.statusCode, body: text }));
  });
  req.on('error', (error) => done({ status: `failed ${error.code}` }));
  req.end(body);
});

/** 32 keep-alive clients over the instances: a create, a list of 20, a get by id, in turn. */
const load = async (instances, key, run) => {
  const until = performance.now() + SECONDS * 1000;
  const results = [];
  const ids = [];
  await Promise.all(Array.from({ length: 32 }, async (_, client) => {
    const instance = instances[client % instances.length];
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    for (let turn = 0; performance.now() < until; turn++) {
      const id = `${run}-${client}-${turn}`;
      const kind = turn % 3;
      const answer = kind === 0
        ? await send(agent, instance.url, key, id, 'POST', '/v1/pets', JSON.stringify({ name: id, categoryId: 1 }))
        : kind === 1 ? await send(agent, instance.url, key, id, 'GET', '/v1/pets?limit=20')
        : await send(agent, instance.url, key, id, 'GET', `/v1/pets/${ids[turn % Math.max(ids.length, 1)] ?? 1}`);
      if (kind === 0 && answer.status === 201) ids.push(JSON.parse(answer.body).id);
      results.push({ id, instance, status: answer.status });
    }
    agent.destroy();
  }));
  await new Promise((done) => setTimeout(done, 300)); // the logs' last batch
  const byStatus = {};
  for (const { status } of results) byStatus[status] = (byStatus[status] ?? 0) + 1;
  const causes = {};
  for (const { id, instance, status } of results) {
    if (typeof status !== 'number' || status < 500) continue;
    const lines = instance.log().split('\n').filter((line) => line.includes(`"reqId":"${id}"`) && !line.includes('"msg":"request failed","req"') && !line.includes('"res":{'));
    const said = lines.map((line) => JSON.parse(line)).map((line) => line.cause ? `${line.msg} (${line.cause.code ?? line.cause.message})` : line.err ? `${line.msg}: ${line.err.code ?? ''} ${line.err.message}` : line.msg)[0];
    const label = `${status} ${said ?? 'no cause logged'}`;
    causes[label] = (causes[label] ?? 0) + 1;
  }
  // Every acknowledged create read back.
  const missing = [];
  for (const id of ids) {
    const answer = await send(false, instances[0].url, key, `readback-${id}`, 'GET', `/v1/pets/${id}`);
    if (answer.status !== 200) missing.push(`${id}: ${answer.status}`);
  }
  return { requests: results.length, byStatus, causes, acknowledgedCreates: ids.length, notReadBack: missing.length, firstNotReadBack: missing.slice(0, 3) };
};

const report = (name, value) => console.log(`${name}: ${JSON.stringify(value)}`);

// 1. PgBouncer as shipped.
{
  const database = await scratch();
  const bouncer = await startPgBouncer({ server: SERVER, poolMode: 'session' });
  const url = bouncer.through(database.url);
  const keys = spawnSync(process.execPath, ['dist/cli/keys.js', 'create', 'ops'], { cwd: api, env: { ...process.env, DATABASE_URL: url }, encoding: 'utf8' });
  report('1. keys create behind PgBouncer as shipped', { exit: keys.status, said: (keys.stderr || keys.stdout).split('\n').filter(Boolean).at(-1)?.slice(0, 200) });
  try {
    const service = await startService({ DATABASE_URL: url });
    report('1. the service behind PgBouncer as shipped', 'started');
    await service.stop();
  } catch (error) {
    report('1. the service behind PgBouncer as shipped', `did not start: ${error.message}`);
  }
  await bouncer.stop();
  await database.drop();
}

// 2 and 3. Two instances behind PgBouncer in each mode.
for (const poolMode of ['transaction', 'session']) {
  const database = await scratch();
  const bouncer = await startPgBouncer({ server: SERVER, poolMode, settings: IGNORE });
  const url = bouncer.through(database.url);
  try {
    const instances = [await startService({ DATABASE_URL: url })];
    instances.push(await startService({ DATABASE_URL: url }));
    report(`${poolMode === 'transaction' ? 2 : 3}. two instances behind PgBouncer in ${poolMode} mode${process.env.IGNORE ? ` (ignoring ${process.env.IGNORE})` : ''}`, await load(instances, instances[0].key, poolMode));
    await Promise.all(instances.map((instance) => instance.stop()));
  } catch (error) {
    report(`${poolMode === 'transaction' ? 2 : 3}. behind PgBouncer in ${poolMode} mode`, `failed: ${error.message}`);
  }
  await bouncer.stop();
  await database.drop();
}

// 4. Four instances on a cluster of 30 connections.
{
  const root = '/usr/lib/postgresql';
  const bin = join(root, readdirSync(root).sort((a, b) => Number(b) - Number(a))[0], 'bin');
  const user = asPostgres();
  const folder = mkdtempSync(join(tmpdir(), 'pooler-cluster-'));
  if (user.uid !== undefined) chownSync(folder, user.uid, user.gid);
  const port = await freePort();
  const run = (command, args) => execFileSync(join(bin, command), args, { cwd: folder, ...user, stdio: 'ignore' });
  run('initdb', ['-D', join(folder, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync']);
  run('pg_ctl', ['start', '-D', join(folder, 'data'), '-w', '-l', join(folder, 'log'), '-o', `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories='${folder}' -c max_connections=30`]);
  try {
    run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'petstore']);
    const url = `postgres://postgres@127.0.0.1:${port}/petstore`;
    const first = await startService({ DATABASE_URL: url });
    const instances = [first, ...(await Promise.all([0, 1, 2].map(() => startService({ DATABASE_URL: url }))))];
    const atStart = instances.flatMap((instance) => instance.log().split('\n').filter((line) => line.includes('"level":40') || line.includes('"level":50')).map((line) => JSON.parse(line).msg));
    report('4. four instances on max_connections = 30', { warnedAtStart: atStart.slice(0, 2), ...(await load(instances, first.key, 'budget')) });
    await Promise.all(instances.map((instance) => instance.stop()));
  } finally {
    run('pg_ctl', ['stop', '-D', join(folder, 'data'), '-w', '-m', 'fast']);
    rmSync(folder, { recursive: true, force: true });
  }
}
