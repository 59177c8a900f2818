// The service of this checkout (`now`) or of another one, installed and built (`before`, its path
// in BEFORE), for cpu-per-request.mjs or cpu-side-by-side.mjs: both on copies of one SQLite file
// of 10,000 animals and one key, seeded by this checkout's bench, as the bench runs them (log at
// info, rate limiter on). REQUEST picks what is sent: `get` (a get by id, the default), `list`
// (a page of 20), `list100` (a page of 100 available), `batch` (a tRPC batch of ten gets), `stream` (the same batch as JSON lines), `batch-list`, `stream-list`, `batch-list100` and `stream-list100` (ten pages of 20 or of 100), `create` (REST) and `batch-create` (ten creates in a tRPC batch).
// Run from `bench/`, after `npx pnpm build` in both checkouts:
//   cd bench && BEFORE=<checkout> node ../docs/decisions/measure/cpu-side-by-side.mjs ../docs/decisions/measure/service-versions-server.mjs before now
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// A variant may name its own request after a colon (`now:stream`), to compare two requests side by side.
const [variant, ownRequest] = process.argv[2].split(':');
const roots = { now: new URL('../../../', import.meta.url), before: process.env.BEFORE && pathToFileURL(`${process.env.BEFORE}/`) };
const root = roots[variant];
if (!root) throw new Error(`no variant ${variant}: now, or before with BEFORE set`);

const { seedDatabase } = await import(new URL('../../../bench/dist/seed.js', import.meta.url).href);
const folder = mkdtempSync(join(tmpdir(), 'service-versions-'));
const seeded = join(folder, 'seeded.db');
const { apiKey } = await seedDatabase(seeded, 10_000);
const file = join(folder, `${variant}.db`);
copyFileSync(seeded, file);

const { createLogger, readConfig, startServer } = await import(new URL('apps/api/dist/index.js', root).href);
const config = readConfig({ PETSTORE_DB: file, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '999999999' });
const { port } = await startServer(config, createLogger(config.logLevel));

const gets = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: 10 }, (_, index) => [index, { petId: 4242 + index }]))));
const batch = `/trpc/${Array.from({ length: 10 }, () => 'getPet').join(',')}?batch=1&input=${gets}`;
const pages = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: 10 }, (_, index) => [index, { status: 'available', limit: 100 }]))));
const batchOfPages = `/trpc/${Array.from({ length: 10 }, () => 'listPets').join(',')}?batch=1&input=${pages}`;
const smallPages = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: 10 }, (_, index) => [index, { limit: 20 }]))));
const batchOfSmallPages = `/trpc/${Array.from({ length: 10 }, () => 'listPets').join(',')}?batch=1&input=${smallPages}`;
const creates = `/trpc/${Array.from({ length: 10 }, () => 'createPet').join(',')}?batch=1`;
const createsBody = JSON.stringify(Object.fromEntries(Array.from({ length: 10 }, (_, index) => [index, { name: 'Bench', categoryId: 1 + index }])));
const requests = {
  get: { method: 'GET', path: '/v1/pets/4242', headers: {} },
  list: { method: 'GET', path: '/v1/pets?limit=20', headers: {} },
  list100: { method: 'GET', path: '/v1/pets?status=available&limit=100', headers: {} },
  batch: { method: 'GET', path: batch, headers: {} },
  stream: { method: 'GET', path: batch, headers: { 'trpc-accept': 'application/jsonl' } },
  'batch-list': { method: 'GET', path: batchOfSmallPages, headers: {} },
  'stream-list': { method: 'GET', path: batchOfSmallPages, headers: { 'trpc-accept': 'application/jsonl' } },
  'batch-list100': { method: 'GET', path: batchOfPages, headers: {} },
  'stream-list100': { method: 'GET', path: batchOfPages, headers: { 'trpc-accept': 'application/jsonl' } },
  create: { method: 'POST', path: '/v1/pets', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Bench', categoryId: 7 }), status: 201 },
  'batch-create': { method: 'POST', path: creates, headers: { 'content-type': 'application/json' }, body: createsBody },
};
const request = requests[ownRequest ?? process.env.REQUEST ?? 'get'];
if (!request) throw new Error(`no request ${ownRequest ?? process.env.REQUEST}: ${Object.keys(requests).join(', ')}`);
process.send({ port, request: { status: 200, ...request, headers: { ...request.headers, Authorization: `Bearer ${apiKey}` } } });
process.on('message', () => process.send(process.cpuUsage()));
process.once('disconnect', () => process.exit());
