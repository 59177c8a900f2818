import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { BODY_LIMIT_BYTES } from '../src/http/read-body.js';
import { LINGER_MAX_BYTES, LINGER_MAX_MS } from '../src/front-door/lingering-close.js';
import { createApiKeys } from '@petstore/core';
import { describe, expect } from 'vitest';
import { type TestServer, it } from '../src/testing/index.js';
import { REPO_ROOT } from './support/processes.js';

/**
 * An answer given before the body was read (a 413 for a body over the limit, a 401, 403 or 415
 * that need not read it) reaches a client that is still sending: the service reads and drops the
 * rest of the body, within bounds, before it closes the connection.
 */

const KiB = 1024;
const MiB = 1024 * KiB;
const EACH = 40;

/** A create whose name makes the body `size` bytes of JSON. */
const bodyOf = (size: number) => {
  const frame = JSON.stringify({ name: '', categoryId: 1 });
  return Buffer.from(JSON.stringify({ name: 'x'.repeat(size - frame.length), categoryId: 1 }));
};

/** The same bytes as a stream: sent chunked, with no Content-Length. */
const chunked = (body: Buffer) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < body.length; at += 16 * KiB) controller.enqueue(body.subarray(at, at + 16 * KiB));
      controller.close();
    },
  });

type Read = { status: number; code: string | undefined } | { failed: string };

/** Sends a create through `fetch` and reads its answer: its status and the Error body's code. */
const create = async (server: TestServer, body: Buffer, framing: 'length' | 'chunked', headers: Record<string, string> = {}): Promise<Read> => {
  try {
    const response = await fetch(`${server.url}/v1/pets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.apiKey}`, 'Content-Type': 'application/json', ...headers },
      body: framing === 'length' ? body : chunked(body),
      ...(framing === 'chunked' && { duplex: 'half' }),
    });
    const answer = (await response.json()) as { code?: string };
    return { status: response.status, code: answer.code };
  } catch (error) {
    return { failed: String((error as Error & { cause?: Error }).cause ?? error) };
  }
};

/** Writes `total` bytes of body as fast as the connection takes them, and reads what comes back. */
const rawUpload = (server: TestServer, total: number, head: string) =>
  new Promise<{ answer: string; written: number; closedAfterMs: number }>((resolve) => {
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    const started = performance.now();
    const chunk = Buffer.alloc(64 * KiB, 'x');
    let written = 0;
    let answer = '';
    socket.on('data', (data: Buffer) => (answer += data.toString()));
    socket.on('error', () => undefined);
    socket.once('close', () => { resolve({ answer, written, closedAfterMs: performance.now() - started }); });
    const pump = () => {
      while (written < total && !socket.destroyed) {
        written += chunk.length;
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    socket.write(head.replace('{length}', String(total)));
    pump();
  });

const head = (key: string, type = 'application/json') =>
  `POST /v1/pets HTTP/1.1\r\nHost: petstore\r\nAuthorization: Bearer ${key}\r\nContent-Type: ${type}\r\nContent-Length: {length}\r\n\r\n`;

describe('an upload over the limit', () => {
  it(`is refused with a 413 every client reads: 80 KiB and 1 MiB, with Content-Length and chunked, ${EACH} each`, async ({ server }) => {
    const kinds = [
      [80 * KiB, 'length'],
      [80 * KiB, 'chunked'],
      [1 * MiB, 'length'],
      [1 * MiB, 'chunked'],
    ] as const;
    const reads = await Promise.all(kinds.flatMap(([size, framing]) => Array.from({ length: EACH }, () => create(server, bodyOf(size), framing))));
    const refused = reads.filter((read) => 'status' in read && read.status === 413 && read.code === 'PAYLOAD_TOO_LARGE');
    expect(reads.filter((read) => 'failed' in read)).toEqual([]);
    expect(refused).toHaveLength(kinds.length * EACH);
    console.log(`early refusal: ${refused.length} of ${reads.length} clients read the 413`);
  });

  it('is refused with a 413 a raw client reads while it keeps writing, and the connection then closes', async ({ server }) => {
    const { answer, written } = await rawUpload(server, 2 * MiB, head(server.apiKey));
    expect(written).toBe(2 * MiB);
    expect(answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toMatch(/"code":"PAYLOAD_TOO_LARGE"/);
  });

  it(`cuts a client that goes on sending past ${LINGER_MAX_BYTES / MiB} MiB, once it has the 413`, async ({ server }) => {
    const { answer, written, closedAfterMs } = await rawUpload(server, 50 * MiB, head(server.apiKey));
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    // What the kernel's buffers held on either side when the service stopped reading, at most.
    expect(written).toBeLessThan(LINGER_MAX_BYTES + 8 * MiB);
    expect(closedAfterMs).toBeLessThan(LINGER_MAX_MS);
    console.log(`early refusal: a 50 MiB upload cut after ${Math.round(written / MiB)} MiB written, ${Math.round(closedAfterMs)} ms`);
  });

  it(`cuts a client that trickles its body for longer than ${LINGER_MAX_MS} ms`, async ({ server }) => {
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    let answer = '';
    socket.on('data', (data: Buffer) => (answer += data.toString()));
    socket.on('error', () => undefined);
    const started = performance.now();
    socket.write(head(server.apiKey).replace('{length}', String(BODY_LIMIT_BYTES * 4)));
    socket.write(Buffer.alloc(BODY_LIMIT_BYTES + 1, 'x'));
    const trickle = setInterval(() => socket.write('x'), 100);
    await new Promise((resolve) => socket.once('close', resolve));
    clearInterval(trickle);
    const closedAfterMs = performance.now() - started;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(closedAfterMs).toBeGreaterThanOrEqual(LINGER_MAX_MS - 100);
    expect(closedAfterMs).toBeLessThan(LINGER_MAX_MS + 2_000);
  }, LINGER_MAX_MS + 10_000);

  it('has its bounds quoted as they are in the interface\'s description', () => {
    const described = readFileSync(`${REPO_ROOT}docs/http-interface.md`, 'utf8').replace(/\s+/g, ' ');
    expect(described).toContain(`for at most ${LINGER_MAX_BYTES / MiB} MiB and ${LINGER_MAX_MS / 1000} s`);
  });
});

describe('a refusal that needs no body', () => {
  let reader: string;
  it.beforeAll(async ({ server }) => {
    reader = (await createApiKeys(server.db.apiKeys).create('reader', { scopes: ['pets:read'] })).token;
  });

  it.for([
    ['401, an unknown key', () => ({ Authorization: 'Bearer pst_unknown' }), 401, 'UNAUTHORIZED'],
    ['403, a key that may only read', () => ({ Authorization: `Bearer ${reader}` }), 403, 'FORBIDDEN'],
    ['415, a body that is not JSON', () => ({ 'Content-Type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ] as const)('is read by every client still sending its 1 MiB body: %s', async ([, headers, status, code], { server }) => {
    const reads = await Promise.all(
      (['length', 'chunked'] as const).flatMap((framing) => Array.from({ length: 10 }, () => create(server, bodyOf(MiB), framing, headers()))),
    );
    expect(reads).toEqual(Array.from({ length: 20 }, () => ({ status, code })));
  });
});
