// How cheap a get by id can be with what the bench turns on for the service, against the bench's
// bare server, each variant a server of its own for cpu-per-request.mjs or cpu-side-by-side.mjs:
//   bare      the bench's bare node:http server: the held key compared, one prepared statement,
//             the JSON body and the deprecation headers
//   features  bare, plus every feature the bench keeps on in the service, each written as cheaply as
//             one function allows: a request id (prefix and count), input checked by zod's compiled
//             parser, a RateLimit count and its two headers, the four security headers, an ETag
//             (SHA-1 of the body), Content-Length, and the access line, by the service's own
//             logger and line writer (from its build)
//   service   the service itself, from its build, as the bench runs it (log at info, rate limiter on)
//   fastify   the bench's Fastify peer with nothing on, from its build, as the bench runs it
//   fastify-features  the bench's Fastify peer with the features on (its logger's access line,
//             helmet, rate-limit, etag, the request id, no-store), from its build, as the bench runs it
// All read a SQLite file of 10,000 animals and one key, made here by the bench's own seeding. Run from the repository, after the build
// (`npx pnpm build`), from `bench/` so that its packages resolve:
//   cd bench && node ../docs/decisions/measure/cpu-side-by-side.mjs ../docs/decisions/measure/features-floor-server.mjs bare features
import { hash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const benchRequire = createRequire(new URL('../../../bench/package.json', import.meta.url));
const BetterSqlite3 = benchRequire('better-sqlite3');
const { z } = benchRequire('zod');
const { GetPetParams } = await import(new URL('../../../packages/core/dist/index.js', import.meta.url).href);
// The service's own logger and access line, from its build.
const { createLogger } = await import(new URL('../../../apps/api/dist/settings/logger.js', import.meta.url).href);
const { createAccessLog } = await import(new URL('../../../apps/api/dist/front-door/access-line.js', import.meta.url).href);

const { readConfig, startServer } = await import(new URL('../../../apps/api/dist/index.js', import.meta.url).href);
const { seedDatabase } = await import(new URL('../../../bench/dist/seed.js', import.meta.url).href);

const variant = process.argv[2];
const file = join(mkdtempSync(join(tmpdir(), 'features-floor-')), 'pets.db');
const { apiKey: KEY } = await seedDatabase(file, 10_000);
const byId = new BetterSqlite3(file).prepare('select id, name, category_id as categoryId, status from pets where id = ?');

// The bench's own key check, which every peer and bare server runs, handed this key as the bench hands it.
const { READY_LINE, handedEnvironment } = await import(new URL('../../../bench/dist/targets/ready.js', import.meta.url).href);
Object.assign(process.env, handedEnvironment({ file }, KEY));
const { holdsKey } = await import(new URL('../../../bench/dist/targets/held-key.js', import.meta.url).href);
const DEPRECATION = ['Deprecation', '@1795305600', 'Sunset', 'Thu, 05 Dec 2030 00:00:00 GMT', 'Link', '</v1/pets>; rel="successor-version"'];

const bare = (req, res) => {
  if (!holdsKey(req.headers.authorization)) return res.writeHead(401).end();
  const pet = byId.get(Number(req.url.slice('/v1/pets/'.length)));
  res.writeHead(200, { 'Content-Type': 'application/json', Deprecation: DEPRECATION[1], Sunset: DEPRECATION[3], Link: DEPRECATION[5] }).end(JSON.stringify(pet));
};

const features = () => {
  const parseParams = z.compile(GetPetParams);
  const prefix = randomBytes(9).toString('base64url');
  let issued = 0;
  const QUOTA = 999_999_999;
  const POLICY = `"per-key";q=${QUOTA};w=60`;
  let spent = 0;
  const SECURITY = ['X-Content-Type-Options', 'nosniff', 'Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'", 'Referrer-Policy', 'no-referrer', 'Cache-Control', 'no-store'];
  const accessLog = createAccessLog(createLogger('info'));
  return (req, res) => {
    const started = performance.now();
    const reqId = `${prefix}.${(issued++).toString(36)}`;
    if (!holdsKey(req.headers.authorization)) return res.writeHead(401).end();
    spent += 1;
    const parsed = parseParams.safeParse({ petId: req.url.slice('/v1/pets/'.length) });
    const body = JSON.stringify(byId.get(parsed.data.petId));
    res.writeHead(200, [
      'X-Request-Id', reqId, ...SECURITY,
      'RateLimit-Policy', POLICY, 'RateLimit', `"per-key";r=${QUOTA - spent};t=60`,
      ...DEPRECATION,
      'ETag', `"${hash('sha1', body, 'base64url')}"`,
      'Content-Type', 'application/json', 'Content-Length', Buffer.byteLength(body),
    ]);
    res.end(body);
    accessLog(reqId, req.method, req.url, 200, Math.round(performance.now() - started));
  };
};

const listening = (handler) =>
  new Promise((resolve) => {
    const server = createServer(handler).listen(0, '127.0.0.1', () => {
      resolve(server.address().port);
    });
  });
const service = async () => {
  const config = readConfig({ PETSTORE_DB: file, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '999999999' });
  return (await startServer(config, createLogger(config.logLevel))).port;
};

/** A bench target from its build: it announces its port on stdout, where the bench reads it. */
const target = (name) => async () => {
  const write = process.stdout.write.bind(process.stdout);
  const announced = new Promise((resolve) => {
    process.stdout.write = (chunk, ...rest) => {
      const ready = READY_LINE.exec(String(chunk));
      if (!ready) return write(chunk, ...rest);
      process.stdout.write = write;
      resolve(Number(ready[1]));
      return true;
    };
  });
  await import(new URL(`../../../bench/dist/targets/${name}.js`, import.meta.url).href);
  return announced;
};

const variants = {
  bare: () => listening(bare),
  features: () => listening(features()),
  service,
  fastify: target('fastify-peer'),
  'fastify-features': target('fastify-features-peer'),
};
const start = variants[variant];
if (!start) throw new Error(`no variant ${variant}; one of ${Object.keys(variants).join(', ')}`);
const port = await start();
process.send({ port, request: { method: 'GET', path: '/v1/pets/4242', headers: { Authorization: `Bearer ${KEY}` }, status: 200 } });
process.on('message', () => process.send(process.cpuUsage()));
process.once('disconnect', () => process.exit());
