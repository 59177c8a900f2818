import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from '@petstore/core';
import { describe, expect } from 'vitest';
import { createLogger } from '../src/settings/logger.js';
import { type TestServer, it } from '../src/testing/index.js';
import { call, expectError, rawRequest } from './support/http.js';

const logLines: Record<string, unknown>[] = [];
it.override('serverLogger', () => {
  const collect = { write: (line: string) => logLines.push(JSON.parse(line) as Record<string, unknown>) };
  return createLogger('info', collect);
});

/**
 * Sends bytes as they are, on a fresh connection, and returns what comes back once the server
 * closes it. `halfClose`: the client ends its side once the bytes are sent.
 */
const sendRaw = (server: TestServer, bytes: string, { halfClose = true } = {}) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('end', () => {
      resolve(answer);
    });
    socket.on('error', reject);
    if (halfClose) socket.end(bytes);
    else socket.write(bytes);
  });

describe('security headers', () => {
  it.for(['/v1/pets', '/v1/nope', '/healthz', '/trpc/listPets', '/nope'])('are on %s', async (path, { server }) => {
    const response = await call(server, path);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-powered-by')).toBeNull();
  });

  it('let the docs page run its own scripts and styles, and nothing from elsewhere', async ({ server }) => {
    const response = await fetch(`${server.url}/docs`);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
    );
    expect(response.headers.get('cache-control')).toBe('no-cache');
  });
});

/** An id the service makes: its instance's 72 random bits in base64url, then a count in base 36. */
const GENERATED_ID = /^[A-Za-z0-9_-]{12}\.[0-9a-z]+$/;

describe('request ids', () => {
  it('are generated for every response, none twice, and never the same in two instances', async ({ server, startServer }) => {
    const first = (await call(server, '/v1/pets')).headers.get('x-request-id');
    const second = (await call(server, '/v1/pets', { key: null })).headers.get('x-request-id');
    const elsewhere = (await call(await startServer(), '/v1/pets')).headers.get('x-request-id');
    for (const id of [first, second, elsewhere]) expect(id).toMatch(GENERATED_ID);
    expect(new Set([first, second, elsewhere]).size).toBe(3);
    // The instance's own part differs: counts alone would repeat across instances.
    expect(elsewhere?.split('.')[0]).not.toBe(first?.split('.')[0]);
  });

  it('keep an id the client sent when it is a plain token, and replace any other', async ({ server }) => {
    expect((await call(server, '/v1/pets', { headers: { 'X-Request-Id': 'trace-42.a:b' } })).headers.get('x-request-id')).toBe('trace-42.a:b');
    const replaced = (await call(server, '/v1/pets', { headers: { 'X-Request-Id': 'no spaces <allowed>' } })).headers.get('x-request-id');
    expect(replaced).toMatch(GENERATED_ID);
  });

  it('are in the log line of every request, which never holds the key', async ({ server }) => {
    await call(server, '/v1/pets?limit=3', { headers: { 'X-Request-Id': 'logged-1' } });
    await call(server, '/v1/pets', { key: 'pst_000000000000_wrong-key-in-a-log' });
    const line = logLines.find((entry) => entry.reqId === 'logged-1');
    expect(line).toMatchObject({ level: 30, req: { method: 'GET', url: '/v1/pets?limit=3' }, res: { statusCode: 200 } });
    const everything = JSON.stringify(logLines);
    expect(everything).not.toContain(server.apiKey);
    expect(everything).not.toContain('wrong-key-in-a-log');
    expect(everything).not.toMatch(/authorization/i);
  });

  it('reach the error lines too', async ({ startServer }) => {
    const broken = await startServer({}, createLogger('info', { write: (line: string) => logLines.push(JSON.parse(line) as Record<string, unknown>) }));
    await broken.db.close();
    await expectError(await call(broken, '/v1/pets', { headers: { 'X-Request-Id': 'crash-1' } }), 500, 'INTERNAL_SERVER_ERROR');
    expect(logLines.filter((entry) => entry.reqId === 'crash-1' && entry.level === 50).length).toBeGreaterThan(0);
  });
});

describe('a SQLite store other local users can read', () => {
  it('is named at start, in one warn line saying how to close it', async ({ startServer }) => {
    const folder = mkdtempSync(join(tmpdir(), 'petstore-loose-'));
    try {
      const file = join(folder, 'petstore.db');
      await openSqliteDatabase(file).close();
      chmodSync(file, 0o644);
      const lines: Record<string, unknown>[] = [];
      await startServer({ PETSTORE_DB: file, DATABASE_URL: '', REDIS_URL: '' }, createLogger('info', { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) }));
      const warnings = lines.filter((entry) => entry.level === 40 && String(entry.msg).includes('open to other local users'));
      expect(warnings).toHaveLength(1);
      // SQLite gives its -wal and -shm the file's own mode: they are named with it.
      expect(warnings[0]).toMatchObject({ files: [{ path: file, mode: '0644' }, { path: `${file}-wal`, mode: '0644' }, { path: `${file}-shm`, mode: '0644' }], msg: expect.stringContaining(`chmod 600 ${file}`) as string });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('requests Node cannot parse', () => {
  it.for<[string, string]>([
    ['a broken request line', 'NOT HTTP AT ALL\r\n\r\n'],
    ['a control character in a header', `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\u0001b\r\n\r\n`],
    ['headers over 16 KiB', `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
  ])('get the Error body for %s', async ([, bytes], { server }) => {
    const answer = await sendRaw(server, bytes);
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/\r\nContent-Type: application\/json/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;
    expect(body).toEqual({ code: 'BAD_REQUEST', message: expect.any(String), status: 400 });
  });
});

describe('bytes after a request that are not a request', () => {
  it.for<[string, string, number]>([
    ['a body sent without its length, after Connection: close', 'DELETE /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nnull', 405],
    ['garbage pipelined behind a request', 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP AT ALL\r\n\r\n', 200],
  ])('leave the request its own answer, then close the connection: %s', async ([, bytes, status], { server }) => {
    const answer = await sendRaw(server, bytes);
    expect(answer.match(/^HTTP\/1\.1 \d+/gm)).toEqual([`HTTP/1.1 ${status}`]);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
  });
});

describe('the connection', () => {
  // A status line follows the body before it on the same line: bodies end without a newline.
  const answers = (raw: string) => raw.match(/HTTP\/1\.1 \d{3}/g);
  const closing = (raw: string) => /\r\nConnection: close\r\n/i.test(raw);

  it.for<[string, (key: string) => string, number]>([
    ['a refusal', () => '', 401],
    ['a get by id', (key) => `Authorization: Bearer ${key}\r\n`, 404],
    ['a page', (key) => `Authorization: Bearer ${key}\r\n`, 200],
  ])('stays open after %s of a request without a body', async ([name, auth, status], { server }) => {
    const path = name === 'a page' ? '/v1/pets?limit=1' : '/v1/pets/999';
    const first = `GET ${path} HTTP/1.1\r\nHost: x\r\n${auth(server.apiKey)}\r\n`;
    // The second request asks the server to close: the connection ends once both are answered.
    const raw = await sendRaw(server, `${first}GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, { halfClose: false });
    expect(answers(raw)).toEqual([`HTTP/1.1 ${status}`, 'HTTP/1.1 200']);
    expect(closing(raw.slice(0, raw.lastIndexOf('HTTP/1.1 200')))).toBe(false);
  });

  it('closes after a refusal whose body was not read', async ({ server }) => {
    const raw = await sendRaw(server, `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":`);
    expect(answers(raw)).toEqual(['HTTP/1.1 401']);
    expect(closing(raw)).toBe(true);
  });
});

describe('shutdown', () => {
  it('lets a request in flight finish, then stops', async ({ startServer }) => {
    const stopping = await startServer();
    // One call first: the contract check then knows this server's document before it stops.
    await call(stopping, '/v1/pets');
    const body = JSON.stringify({ name: 'Last one', categoryId: 1 });
    // The request starts, and its body is still on its way when shutdown begins.
    const inFlight = rawRequest(stopping.url, {
      path: '/v1/pets',
      headers: { Authorization: `Bearer ${stopping.apiKey}`, 'Content-Type': 'application/json', 'Content-Length': String(body.length) },
      chunks: [body.slice(0, 5), new Promise<string>((resolve) => {
        setTimeout(() => {
          resolve(body.slice(5));
        }, 300);
      })],
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = stopping.dispose();
    const answer = await inFlight;
    expect(answer.status).toBe(201);
    await closed;
    await expect(fetch(`${stopping.url}/healthz`)).rejects.toThrow();
  });
});
