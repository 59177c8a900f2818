// A server that reads a REST create's JSON body and answers 201, one way per variant:
//   hand         the service's readJsonObject (apps/api/dist: build @petstore/api first)
//   body-parser  body-parser's json(), as Express apps read JSON (limit, inflation, strict)
//   raw-body     raw-body's getRawBody (limit, no inflation), then JSON.parse
// Driven by cpu-per-request.mjs; body-parser and raw-body are the versions Express brings.
import { createRequire } from 'node:module';
import { createServer } from 'node:http';

const apiRequire = createRequire(new URL('../../../apps/api/package.json', import.meta.url));
const expressRequire = createRequire(apiRequire.resolve('express'));
const bodyParserRequire = createRequire(expressRequire.resolve('body-parser'));
const { BODY_LIMIT_BYTES, readJsonObject } = await import(new URL('../../../apps/api/dist/http/read-body.js', import.meta.url).href);

const answer = (res, body) => {
  const text = JSON.stringify({ id: 1, name: body.name });
  res.writeHead(201, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
};
const refuse = (res, status) => res.writeHead(status, { 'Content-Length': 0 }).end();

const readers = {
  hand: (req, res) =>
    readJsonObject(req).then(
      (body) => answer(res, body),
      () => refuse(res, 400),
    ),
  'body-parser': (() => {
    const json = expressRequire('body-parser').json({ limit: BODY_LIMIT_BYTES, type: 'application/json' });
    return (req, res) =>
      json(req, res, (error) => {
        if (error) refuse(res, error.status ?? 400);
        else answer(res, req.body);
      });
  })(),
  'raw-body': (() => {
    const getRawBody = bodyParserRequire('raw-body');
    return (req, res) =>
      getRawBody(req, { length: req.headers['content-length'], limit: BODY_LIMIT_BYTES, encoding: 'utf-8' }).then(
        (text) => {
          const body = JSON.parse(text);
          if (body === null || typeof body !== 'object' || Array.isArray(body)) refuse(res, 400);
          else answer(res, body);
        },
        (error) => refuse(res, error.status ?? 400),
      );
  })(),
};

const variant = process.argv[2];
const read = readers[variant];
if (!read) throw new Error(`no variant ${variant}; one of ${Object.keys(readers).join(', ')}`);
const body = JSON.stringify({ name: 'Rex', categoryId: 1, status: 'available', tags: ['friendly', 'small'] });
const server = createServer(read).listen(0, '127.0.0.1', () => {
  process.send({
    port: server.address().port,
    request: { method: 'POST', path: '/v1/pets', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }, body, status: 201 },
  });
});
process.on('message', () => process.send(process.cpuUsage()));
// Gone with the driver, even when it fails half-way.
process.once('disconnect', () => process.exit());
