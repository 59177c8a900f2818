// What a stopping server behind HAProxy loses when it closes its listener while HAProxy still
// connects to it: two plain `node:http` servers behind Debian's HAProxy, configured as the tests
// run it (apps/api/test/support/haproxy-config.ts: its health checks, keep-alive, retries), 32 keep-alive
// clients alternating POST and GET through it; one server stops as the service does (`/readyz`
// 503 and `Connection: close` at once, the listener closed after DELAY ms, idle connections 5 s
// later), its loop busy for BLOCK ms just before the close, as on a host whose cores are taken.
// Prints what the clients got, by status or error code. From apps/api:
//
//   DELAY=0 node --import tsx ../../docs/decisions/measure/stop-behind-haproxy.mjs
//   DELAY=2500 node --import tsx ../../docs/decisions/measure/stop-behind-haproxy.mjs
//
// BLOCK (default 50) tunes the busy time. Loopback only; every process it starts, it stops.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const support = (name) => import(new URL(`../../../apps/api/test/support/${name}.ts`, import.meta.url).href);
const { configFor, haproxyBinary } = await support('haproxy-config');
const { freePort } = await support('redis-server');

const DELAY = Number(process.env.DELAY ?? 0);
const BLOCK = Number(process.env.BLOCK ?? 50);
const CLIENTS = 32;

const busyFor = (ms) => {
  const until = Date.now() + ms;
  while (Date.now() < until);
};

const startServer = async () => {
  let stopping = false;
  const server = http.createServer((request, reply) => {
    const headers = stopping ? { connection: 'close' } : {};
    if (request.url === '/readyz') {
      reply.writeHead(stopping ? 503 : 200, headers).end();
      return;
    }
    request.resume();
    request.on('end', () => {
      busyFor(1);
      reply.writeHead(request.method === 'POST' ? 201 : 200, headers).end('{}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    stop: async () => {
      stopping = true;
      await sleep(DELAY);
      busyFor(BLOCK);
      const closed = new Promise((resolve) => server.close(resolve));
      setTimeout(() => server.closeIdleConnections(), 5_000).unref();
      await closed;
    },
    end: () => {
      server.close();
      server.closeAllConnections();
    },
  };
};

const servers = [await startServer(), await startServer()];
const port = await freePort();
const folder = mkdtempSync(join(tmpdir(), 'stop-behind-haproxy-'));
writeFileSync(join(folder, 'haproxy.cfg'), configFor(port, servers.map((server) => `127.0.0.1:${server.port}`)));
const haproxy = spawn(haproxyBinary(), ['-db', '-f', join(folder, 'haproxy.cfg')], { stdio: 'ignore' });
// HAProxy listening, and two good checks of each server.
await sleep(1_500);

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
const outcomes = {};
let going = true;
const send = (method) =>
  new Promise((resolve) => {
    const request = http.request({ host: '127.0.0.1', port, path: '/v1/pets', method, agent }, (answer) => {
      answer.resume();
      answer.on('end', () => resolve(`${method} ${answer.statusCode}`));
    });
    request.on('error', (error) => resolve(`${method} ${error.code}`));
    request.end(method === 'POST' ? '{"name":"Rex"}' : undefined);
  });
const client = async (index) => {
  for (let turn = 0; going; turn++) {
    const outcome = await send((index + turn) % 2 === 0 ? 'POST' : 'GET');
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
};
const clients = Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index)));
await sleep(1_000);
await servers[0].stop();
await sleep(1_000);
going = false;
await clients;
agent.destroy();
haproxy.kill();
servers[1].end();
console.log(JSON.stringify({ DELAY, BLOCK, outcomes }));
