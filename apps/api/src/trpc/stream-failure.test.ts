import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jsonlStreamConsumer } from '@trpc/server/unstable-core-do-not-import';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createServerContext, openRequestContext } from '../front-door/front-door.js';
import { DEFAULT_REQUEST_BOUNDS } from '../settings/config.js';
import { writeReply } from '../front-door/write-reply.js';
import { type CallOutcome, streamReply } from './replies.js';

/**
 * A streamed batch whose body fails after its head went out: the writer ends the response as
 * tRPC's own node adapter ends it (`res.end()` after the error is reported), so the client reads a
 * complete HTTP response and its decoder fails the calls still pending, instead of a reset
 * connection. The transports' calls never fail this way; the stream here is the test's own.
 */

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

const serve = async (stream: () => Promise<CallOutcome>[], logged: Record<string, unknown>[]) => {
  const logger = pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) });
  const serverContext = createServerContext({ logger, sendTimeoutMs: 30_000, maxUnsentBytes: DEFAULT_REQUEST_BOUNDS.maxUnsentBytes, clientAddress: () => '127.0.0.1' });
  const server = createServer((req, res) => {
    const context = openRequestContext(req, res, serverContext);
    void streamReply(context, stream(), []).then((reply) => {
      writeReply(context, reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const fetchRaw = (url: string) =>
  new Promise<{ status: number; text: string; ended: boolean }>((resolve, reject) => {
    request(url, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, text, ended: true });
      });
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });

describe('a streamed batch that fails after its head', () => {
  it('ends the response cleanly, logs the failure, and leaves the calls still pending failed on the client', async () => {
    const logged: Record<string, unknown>[] = [];
    const url = await serve(
      () => [
        Promise.resolve({ data: 'ready' }),
        new Promise<CallOutcome>((_, reject) =>
          setTimeout(() => {
            reject(new Error('the encoder broke'));
          }, 50),
        ),
      ],
      logged,
    );
    const answer = await fetchRaw(url);
    expect(answer).toMatchObject({ status: 200, ended: true });
    const from = new Response(answer.text).body;
    if (!from) throw new Error('no body');
    const [head] = await jsonlStreamConsumer<Record<string, unknown>>({ from, abortController: new AbortController() });
    expect(await Promise.resolve(head['0'])).toEqual({ result: { data: 'ready' } });
    await expect(Promise.resolve(head['1'])).rejects.toThrow();
    expect(logged.filter((line) => line.msg === 'streaming the response failed')).toHaveLength(1);
  });

  it('answers a 500 when it fails before its head, as any crash', async () => {
    const logged: Record<string, unknown>[] = [];
    const url = await serve(() => [Promise.reject(new Error('the encoder broke'))], logged);
    const answer = await fetchRaw(url);
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500 } } });
  });
});
