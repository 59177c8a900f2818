// The body readers of body-reader-server.mjs in a tight loop, without HTTP: each read takes a
// fresh stream carrying a REST create's JSON body and its headers, as node hands a request over.
// Rounds alternate the readers in a rotated order; prints µs of CPU per body read, each round and
// the medians. Build @petstore/api first (the service's reader is read from its dist).
//
//   node docs/decisions/measure/body-reader-loop.mjs        (ROUNDS, default 9; READS, default 20000)
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';

const apiRequire = createRequire(new URL('../../../apps/api/package.json', import.meta.url));
const expressRequire = createRequire(apiRequire.resolve('express'));
const bodyParserRequire = createRequire(expressRequire.resolve('body-parser'));
const { BODY_LIMIT_BYTES, readJsonObject } = await import(new URL('../../../apps/api/dist/http/read-body.js', import.meta.url).href);
const json = expressRequire('body-parser').json({ limit: BODY_LIMIT_BYTES, type: 'application/json' });
const getRawBody = bodyParserRequire('raw-body');

const ROUNDS = Number(process.env.ROUNDS ?? 9);
const READS = Number(process.env.READS ?? 20_000);
const body = Buffer.from(JSON.stringify({ name: 'Rex', categoryId: 1, status: 'available', tags: ['friendly', 'small'] }));
const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };

const request = () => {
  const req = new Readable({ read: () => undefined });
  // What on-finished reads to tell a request still arriving; body-parser skips a finished one.
  Object.assign(req, { headers, complete: false, socket: { readable: true } });
  req.push(body);
  req.push(null);
  return req;
};

const readers = {
  hand: () => readJsonObject(request()),
  'body-parser': () =>
    new Promise((resolve, reject) => {
      const req = request();
      json(req, {}, (error) => (error ? reject(error) : resolve(req.body)));
    }),
  'raw-body': async () => {
    const req = request();
    const text = await getRawBody(req, { length: req.headers['content-length'], limit: BODY_LIMIT_BYTES, encoding: 'utf-8' });
    const value = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
    return value;
  },
  // The stream alone, read to its end: what every reader pays before its own work.
  'stream only': () =>
    new Promise((resolve) => {
      const req = request();
      req.on('data', () => undefined);
      req.once('end', resolve);
    }),
};

const names = Object.keys(readers);
const perRead = new Map(names.map((name) => [name, []]));
const run = async (name) => {
  const read = readers[name];
  const before = process.cpuUsage();
  for (let index = 0; index < READS; index++) {
    const value = await read();
    if (name !== 'stream only' && value?.name !== 'Rex') throw new Error(`${name} read ${JSON.stringify(value)}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / READS;
};
for (const name of names) await run(name); // warm-up, unrecorded
for (let round = 0; round < ROUNDS; round++) {
  const line = [];
  for (const name of names.map((_, index) => names[(index + round) % names.length])) {
    const micros = await run(name);
    perRead.get(name).push(micros);
    line.push(`${name} ${micros.toFixed(2)}`);
  }
  console.log(`round ${String(round + 1)} (µs per read): ${line.join(', ')}`);
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const name of names) {
  const ratios = perRead.get(name).map((micros, round) => micros / perRead.get('hand')[round]);
  console.log(`${name}: median ${median(perRead.get(name)).toFixed(2)} µs CPU per read; ÷ hand per round median ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(' ')})`);
}
