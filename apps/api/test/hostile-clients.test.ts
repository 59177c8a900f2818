import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { MAX_BATCH_SIZE, createApiKeys } from '@petstore/core';
import { describe, expect } from 'vitest';
import { MAX_QUOTA_SUBJECTS } from '../src/admission/quota.js';
import { BODY_LIMIT_BYTES, MAX_DECOMPRESSION_RATIO } from '../src/http/read-body.js';
import { LINGER_MAX_MS } from '../src/front-door/lingering-close.js';
import { MAX_PIPELINED_REQUESTS } from '../src/front-door/connections.js';
import { type TestServer, it } from '../src/testing/index.js';
import { call } from './support/http.js';
import { bodyOf, cpuSecondsOf, exchangeOnce, openConnection, requestText, rssMiBOf, statusOf } from './support/raw-connection.js';
import { API_ROOT, builtEntry } from './support/processes.js';
import { startInstance } from './support/service-instance.js';

/**
 * The service as a hostile client meets it (OWASP API4:2023, unrestricted resource consumption):
 * every request's CPU, bytes, time and memory are bounded before they are paid, with a key or
 * without. Each test plays one attack against a real service over 127.0.0.1 and asserts the bound.
 */

/** A batch path of 16,000 empty names: it fits in Node's 16 KiB request line. */
const SIXTEEN_THOUSAND_NAMES = `/trpc/${','.repeat(16_000)}?batch=1`;
/** The smallest batch refused for its size: one name more than the 50 a batch may hold. */
const ONE_NAME_TOO_MANY = `/trpc/${','.repeat(50)}?batch=1`;

/** The most bytes any refusal may take, headers and body together. */
const SHORT_ANSWER_BYTES = 2 * 1024;

/** Slack for a busy machine on top of a bound measured in seconds. */
const SLACK_S = 1.5;

const seconds = (ms: number) => ms / 1000;

describe('a batch of thousands of names, without a key', () => {
  it('is refused with one short answer before anything is made per name: 200 of them cost no more CPU than 200 of 51 names', async ({ storage }) => {
    // As `start` runs it: the default quotas, the failed-key throttle included.
    const service = await startInstance({ ...storage.env, RATE_LIMIT_PER_MINUTE: '600', AUTH_FAILURES_PER_MINUTE: '60' });
    try {
      // The first requests compile what a request runs; the bound is on the service warmed up.
      for (let warm = 0; warm < 20; warm++) {
        await exchangeOnce(service.url, requestText('GET', SIXTEEN_THOUSAND_NAMES));
        await exchangeOnce(service.url, requestText('GET', ONE_NAME_TOO_MANY));
      }
      // The same refusal of the smallest batch too big is the yardstick, measured in turns with the
      // attack so that both see the same machine: a busy one slows both alike. Work per name would
      // make 16,000 names cost hundreds of times what 51 do.
      const cpu = { attack: 0, yardstick: 0 };
      const answers = [];
      for (let turn = 0; turn < 4; turn++) {
        let before = cpuSecondsOf(service.pid);
        for (let attack = 0; attack < 50; attack++) answers.push(await exchangeOnce(service.url, requestText('GET', SIXTEEN_THOUSAND_NAMES)));
        cpu.attack += cpuSecondsOf(service.pid) - before;
        before = cpuSecondsOf(service.pid);
        for (let small = 0; small < 50; small++) answers.push(await exchangeOnce(service.url, requestText('GET', ONE_NAME_TOO_MANY)));
        cpu.yardstick += cpuSecondsOf(service.pid) - before;
      }
      console.log(
        `200 batches of 16,000 names without a key: ${cpu.attack.toFixed(2)} s of CPU (200 of 51 names: ${cpu.yardstick.toFixed(2)} s), at most ${Math.max(...answers.map((each) => each.bytes))} bytes each`,
      );
      expect(new Set(answers.map((each) => statusOf(each.answer)))).toEqual(new Set([400]));
      expect(JSON.parse(bodyOf(answers[0]?.answer ?? ''))).toMatchObject({ error: { message: 'Batch call exceeds maximum size', data: { code: 'BAD_REQUEST' } } });
      for (const each of answers) expect(each.bytes).toBeLessThanOrEqual(SHORT_ANSWER_BYTES);
      // Reading 16 KB of path costs something (1.6 times the yardstick on a quiet machine); three
      // times it, and a clock tick of /proc's, is room for that.
      expect(cpu.attack).toBeLessThanOrEqual(3 * cpu.yardstick + 0.05);
    } finally {
      await service.stop();
    }
  });

  it.for([
    { label: '400, a REST query too long to be valid', request: () => requestText('GET', `/v1/pets?limit=${'9'.repeat(15_000)}`), key: true, status: 400 },
    { label: '401, a REST path of 15,000 characters', request: () => requestText('GET', `/v1/${'p'.repeat(15_000)}`), key: false, status: 401 },
    { label: '401, a tRPC call with a query of 15,000 characters', request: () => requestText('GET', `/trpc/listPets?input=${'x'.repeat(15_000)}`), key: false, status: 401 },
    { label: '403, a create with a read-only key', request: () => requestText('POST', `/v1/pets?${'q'.repeat(15_000)}`, { 'Content-Type': 'application/json' }, '{}'), key: 'reader', status: 403 },
    { label: '404, a path of 15,000 characters', request: () => requestText('GET', `/${'n'.repeat(15_000)}`), key: false, status: 404 },
    { label: '413, a body over the limit', request: () => requestText('POST', '/v1/pets', { 'Content-Type': 'application/json' }, 'x'.repeat(BODY_LIMIT_BYTES + 1)), key: true, status: 413 },
    { label: '415, a body of another type', request: () => requestText('POST', `/v1/pets?${'q'.repeat(15_000)}`, { 'Content-Type': 'text/plain' }, 'x'), key: true, status: 415 },
  ])('every refusal is short, whatever the path or query: $label', async ({ request, key, status }, { startServer }) => {
    const server = await startServer();
    const { token: reader } = await createApiKeys(server.db.apiKeys).create('reader', { scopes: ['pets:read'] });
    const authorization = key === 'reader' ? reader : key ? server.apiKey : undefined;
    const text = request().replace('Connection: close\r\n', `Connection: close\r\n${authorization ? `Authorization: Bearer ${authorization}\r\n` : ''}`);
    const { answer, bytes } = await exchangeOnce(server.url, text);
    expect(statusOf(answer)).toBe(status);
    expect(bytes).toBeLessThanOrEqual(SHORT_ANSWER_BYTES);
  });

  it(`is refused at ${MAX_BATCH_SIZE + 1} calls with the key too: the batch's size is known before anything else`, async ({ server }) => {
    const names = Array.from({ length: MAX_BATCH_SIZE + 1 }, () => 'listPets').join('%2C');
    const { answer } = await exchangeOnce(server.url, requestText('GET', `/trpc/${names}?batch=1`, { Authorization: `Bearer ${server.apiKey}` }));
    expect(statusOf(answer)).toBe(400);
  });
});

/** What a key has left, from a response's RateLimit header. */
const remaining = (response: Response) => Number(/;r=(\d+);/.exec(response.headers.get('ratelimit') ?? '')?.[1]);

describe('the quota', () => {
  it('charges each call a batch runs, however its names are separated', async ({ startServer }) => {
    const running = await startServer({ RATE_LIMIT_PER_MINUTE: '120' });
    const before = remaining(await call(running, '/v1/pets?limit=1'));
    const input = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: 50 }, (_, index) => [index, { limit: 1 }]))));
    const encoded = await call(running, `/trpc/${Array.from({ length: 50 }, () => 'listPets').join('%2C')}?batch=1&input=${input}`);
    expect(encoded.status).toBe(200);
    expect((await encoded.json()) as unknown[]).toHaveLength(50);
    expect(remaining(encoded)).toBe(before - 50);
  });

  it('counts a 304 like the 200 it stands for: a key with one request left gets one', async ({ startServer }) => {
    const running = await startServer({ RATE_LIMIT_PER_MINUTE: '5' });
    for (let spent = 0; spent < 4; spent++) expect((await call(running, '/v1/pets')).status).toBe(200);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 20; attempt++) statuses.push((await call(running, '/v1/pets', { headers: { 'If-None-Match': '*' } })).status);
    expect(statuses).toEqual([304, ...Array.from({ length: 19 }, () => 429)]);
  });
});

describe('a throttled address', () => {
  it('is refused before its key is looked up: a valid key this instance never saw gets 429, one it knows gets in', async ({ startServer }) => {
    const running = await startServer({ AUTH_FAILURES_PER_MINUTE: '5' });
    expect((await call(running, '/v1/pets')).status).toBe(200);
    const { token: unseen } = await createApiKeys(running.db.apiKeys).create('unseen');
    // The key with its last character changed: one key in 62 ends in the character put in its place.
    const wrong = `${running.apiKey.slice(0, -1)}${running.apiKey.endsWith('0') ? '1' : '0'}`;
    for (let guess = 0; guess < 5; guess++) expect((await call(running, '/v1/pets', { key: wrong })).status).toBe(401);
    // A lookup would have found this key good and let it in.
    expect((await call(running, '/v1/pets', { key: unseen })).status).toBe(429);
    expect((await call(running, '/v1/pets')).status).toBe(200);
  });
});

/** Sends `count` keyless requests from as many addresses (X-Forwarded-For), pipelined on a few connections. */
const fromManyAddresses = async (server: TestServer, count: number) => {
  const CONNECTIONS = 8;
  const IN_FLIGHT = MAX_PIPELINED_REQUESTS;
  const each = Math.ceil(count / CONNECTIONS);
  await Promise.all(
    Array.from({ length: CONNECTIONS }, (_, connection) =>
      new Promise<void>((resolve, reject) => {
        const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
        let sent = 0;
        let answered = 0;
        let tail = '';
        const sendMore = () => {
          let batch = '';
          for (; sent < each && sent - answered < IN_FLIGHT; sent++) {
            const n = connection * each + sent;
            batch += `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}\r\n\r\n`;
          }
          if (batch) socket.write(batch);
        };
        socket.on('data', (chunk: Buffer) => {
          const text = tail + chunk.toString('latin1');
          answered += text.split('HTTP/1.1 ').length - 1;
          tail = text.slice(-8);
          if (answered >= each) {
            socket.destroy();
            resolve();
          } else sendMore();
        });
        socket.on('error', reject);
        sendMore();
      }),
    ),
  );
};

describe('tables an outsider can grow', () => {
  it(`stay bounded: 100,000 addresses leave at most ${MAX_QUOTA_SUBJECTS.toLocaleString('en')} counted and the heap within 8 MiB`, async ({ startServer }) => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const running = await startServer({ TRUST_PROXY: 'loopback', AUTH_FAILURES_PER_MINUTE: '60' });
    await fromManyAddresses(running, 1_000);
    gc();
    const before = process.memoryUsage().heapUsed;
    await fromManyAddresses(running, 100_000);
    gc();
    const grewMiB = (process.memoryUsage().heapUsed - before) / 2 ** 20;
    console.log(`100,000 addresses: the heap grew by ${grewMiB.toFixed(1)} MiB`);
    expect(grewMiB).toBeLessThan(8);
  }, 120_000);
});

describe('a body that never ends', () => {
  it('is answered 408 once HEADERS_TIMEOUT_MS + BODY_TIMEOUT_MS have passed from its first byte, and the connection closed within the lingering bound', async ({ startServer }) => {
    const running = await startServer({ HEADERS_TIMEOUT_MS: '1000', BODY_TIMEOUT_MS: '1000' });
    const connection = openConnection(running.url);
    connection.send(`POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${running.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n`);
    const trickle = setInterval(() => { connection.send(' '); }, 200);
    const { answer, answeredAfterS = Infinity, closedAfterS } = await connection.closed(30);
    clearInterval(trickle);
    expect(statusOf(answer)).toBe(408);
    expect(JSON.parse(bodyOf(answer))).toMatchObject({ code: 'TIMEOUT', status: 408 });
    // Node looks for requests past their time once a second (server.ts).
    expect(answeredAfterS).toBeGreaterThanOrEqual(2);
    expect(answeredAfterS).toBeLessThanOrEqual(2 + 1 + SLACK_S);
    expect(closedAfterS).toBeLessThanOrEqual(answeredAfterS + seconds(LINGER_MAX_MS) + SLACK_S);
  });

  it('compressed, is answered 408 on time too', async ({ startServer }) => {
    const running = await startServer({ HEADERS_TIMEOUT_MS: '1000', BODY_TIMEOUT_MS: '1000' });
    const connection = openConnection(running.url);
    connection.send(`POST /trpc/createPet HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${running.apiKey}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 60000\r\n\r\n`);
    const member = gzipSync(Buffer.alloc(0));
    const trickle = setInterval(() => { connection.send(member); }, 200);
    const { answer, answeredAfterS = Infinity } = await connection.closed(30);
    clearInterval(trickle);
    expect(statusOf(answer)).toBe(408);
    expect(JSON.parse(bodyOf(answer))).toMatchObject({ error: { data: { code: 'TIMEOUT', httpStatus: 408 } } });
    expect(answeredAfterS).toBeLessThanOrEqual(2 + 1 + SLACK_S);
  });

  it('compressed, counts its compressed bytes: a stream of empty gzip members is refused at the limit', async ({ server }) => {
    const connection = openConnection(server.url);
    connection.send(`POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.apiKey}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const member = gzipSync(Buffer.alloc(0));
    const chunk = Buffer.concat([Buffer.from(`${member.length.toString(16)}\r\n`), member, Buffer.from('\r\n')]);
    for (let sent = 0; sent <= BODY_LIMIT_BYTES / member.length + 100; sent += 100) connection.send(Buffer.concat(Array.from({ length: 100 }, () => chunk)));
    const { answer } = await connection.closed(10);
    expect(statusOf(answer)).toBe(413);
  });

  it(`compressed, may grow at most ${MAX_DECOMPRESSION_RATIO} times: a small body that inflates to 60 KB is refused`, async ({ server }) => {
    const bomb = gzipSync(Buffer.alloc(60_000, ' '));
    expect(bomb.length * MAX_DECOMPRESSION_RATIO).toBeLessThan(60_000);
    const head = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${server.apiKey}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${bomb.length}\r\n\r\n`;
    const { answer } = await exchangeOnce(server.url, Buffer.concat([Buffer.from(head), bomb]));
    expect(statusOf(answer)).toBe(413);
    expect(JSON.parse(bodyOf(answer))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: `The body grows to more than ${MAX_DECOMPRESSION_RATIO} times its compressed size.` });
  });
});

describe('headers that never come', () => {
  it('close a connection that sends nothing once HEADERS_TIMEOUT_MS has passed', async ({ startServer }) => {
    const running = await startServer({ HEADERS_TIMEOUT_MS: '1000' });
    const { answer, closedAfterS } = await openConnection(running.url).closed(30);
    expect(answer).toBe('');
    expect(closedAfterS).toBeLessThanOrEqual(1 + 1 + SLACK_S);
  });

  it('answer headers sent a byte at a time with 408, and close, once HEADERS_TIMEOUT_MS has passed', async ({ startServer }) => {
    const running = await startServer({ HEADERS_TIMEOUT_MS: '1000' });
    const connection = openConnection(running.url);
    connection.send('GET /v1/pets HTTP/1.1\r\nX-Slow: ');
    const trickle = setInterval(() => { connection.send('a'); }, 200);
    const { answer, closedAfterS } = await connection.closed(30);
    clearInterval(trickle);
    expect(statusOf(answer)).toBe(408);
    expect(closedAfterS).toBeLessThanOrEqual(1 + 1 + SLACK_S);
  });
});

describe('a client that does not read', () => {
  it('holds no answer past SEND_TIMEOUT_MS: its connection is closed', async ({ startServer }) => {
    const running = await startServer({ SEND_TIMEOUT_MS: '1000' });
    for (let pet = 0; pet < 100; pet++) await call(running, '/v1/pets', { method: 'POST', json: { name: `Pet ${pet}`, categoryId: 1 } });
    // Each answer is 50 pages of 100 animals; more of them than the system's buffers hold.
    const input = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: 50 }, (_, index) => [index, { limit: 100 }]))));
    const big = `GET /trpc/${Array.from({ length: 50 }, () => 'listPets').join(',')}?batch=1&input=${input} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${running.apiKey}\r\n\r\n`;
    const connection = openConnection(running.url, { read: false });
    connection.send(big.repeat(200));
    const { closedAfterS } = await connection.closed(30);
    // Twice the send timeout at most once an answer waits, after the few seconds the answers before it take.
    expect(closedAfterS).toBeLessThanOrEqual(2 * 1 + 5 + SLACK_S);
  });

  it('of 200 that send a batch of thousands of names and never read, costs the service at most a few MiB', async ({ storage }) => {
    const service = await startInstance({ ...storage.env, RATE_LIMIT_PER_MINUTE: '600', AUTH_FAILURES_PER_MINUTE: '60' });
    try {
      const idle = rssMiBOf(service.pid);
      const connections = Array.from({ length: 200 }, () => {
        const connection = openConnection(service.url, { read: false });
        connection.send(`GET ${SIXTEEN_THOUSAND_NAMES} HTTP/1.1\r\nHost: x\r\n\r\n`);
        return connection;
      });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const grewMiB = rssMiBOf(service.pid) - idle;
      console.log(`200 clients that never read: the service grew by ${grewMiB.toFixed(1)} MiB`);
      expect(grewMiB).toBeLessThan(10);
      // Their answers were small enough to leave at once: idle, they are closed as any idle connection is.
      const closed = await Promise.all(connections.map((connection) => connection.closed(15)));
      expect(closed.filter(({ closedAfterS }) => closedAfterS === undefined)).toEqual([]);
    } finally {
      await service.stop();
    }
  });
});

describe('connections past MAX_CONNECTIONS', () => {
  it('get one answer each and are closed: health and readiness as usual, anything else 503', async ({ startServer }) => {
    const running = await startServer({ MAX_CONNECTIONS: '4' });
    const held = Array.from({ length: 4 }, () => openConnection(running.url));
    for (const connection of held) connection.send('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refused = await exchangeOnce(running.url, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${running.apiKey}\r\n\r\n`);
    expect(statusOf(refused.answer)).toBe(503);
    expect(refused.answer).toMatch(/\r\nRetry-After: 1\r\n/i);
    expect(refused.answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(JSON.parse(bodyOf(refused.answer))).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    for (const path of ['/healthz', '/readyz']) {
      const health = await exchangeOnce(running.url, `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(statusOf(health.answer)).toBe(200);
      expect(health.closedAfterS).toBeDefined();
    }
    await Promise.all(held.map((connection) => connection.closed(0)));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await call(running, '/v1/pets')).status).toBe(200);
  });
});

describe('backups', () => {
  it('are readable by their owner only, also when --force replaces a file', async ({ storage }) => {
    const folder = mkdtempSync(join(tmpdir(), 'petstore-private-backup-'));
    try {
      const service = await startInstance(storage.env);
      await service.stop();
      const target = join(folder, 'copy.db');
      const backup = (...args: string[]) => {
        const run = spawnSync(process.execPath, [builtEntry('src/cli/backup.ts'), ...args], {
          cwd: API_ROOT,
          env: { ...process.env, ...storage.env },
          encoding: 'utf8',
        });
        expect(run.status, run.stderr).toBe(0);
        return statSync(target).mode & 0o777;
      };
      expect(backup(target)).toBe(0o600);
      // A file its owner had opened to others is replaced by one that is not.
      chmodSync(target, 0o644);
      expect(backup(target, '--force')).toBe(0o600);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
