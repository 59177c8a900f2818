import { pino } from 'pino';
import { describe, expect } from 'vitest';
import { it } from '../src/testing/index.js';
import { bodyOf, exchangeOnce, openConnection, statusOf } from './support/raw-connection.js';
import { startInstance } from './support/service-instance.js';

/**
 * Every answer the service gives comes from the service, through its front door: the Error body,
 * a request id, the security headers, an access line that records what was sent. Node would answer
 * some requests itself, bare, before any handler ran: these are those requests.
 */

/** A logger whose lines the test reads, as the service writes them. */
const collectedLogger = () => {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
};

const accessLines = (lines: Record<string, unknown>[]) => lines.filter((line) => typeof line.responseTime === 'number');

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a request Node would answer itself', () => {
  it('without Host gets 400 with the Error body, a request id, the security headers and an access line, and the connection closes', async ({ startServer }) => {
    const { logger, lines } = collectedLogger();
    const running = await startServer({}, logger);
    const { answer, closedAfterS } = await exchangeOnce(running.url, 'GET /v1/pets HTTP/1.1\r\nX-Request-Id: no-host\r\n\r\n');
    expect(statusOf(answer)).toBe(400);
    expect(JSON.parse(bodyOf(answer))).toEqual({ code: 'BAD_REQUEST', message: 'An HTTP/1.1 request must have a Host header.', status: 400 });
    expect(answer).toMatch(/\r\nX-Request-Id: no-host\r\n/i);
    expect(answer).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(closedAfterS).toBeDefined();
    await pause(200);
    expect(accessLines(lines)).toMatchObject([{ reqId: 'no-host', res: { statusCode: 400 } }]);
  });

  it('with an expectation the service does not know is served as it would be without it, as nginx does', async ({ server }) => {
    const { answer } = await exchangeOnce(server.url, `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\nExpect: nope\r\nAuthorization: Bearer ${server.apiKey}\r\n\r\n`);
    expect(statusOf(answer)).toBe(200);
    expect(answer).toMatch(/\r\nX-Request-Id: /i);
  });

  it('with Expect: 100-continue and no key is refused 401 without being invited to send its body', async ({ server }) => {
    const connection = openConnection(server.url);
    connection.send('POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2048\r\nExpect: 100-continue\r\n\r\n');
    const { answer } = await connection.closed(8);
    expect(statusOf(answer)).toBe(401);
    expect(answer).not.toMatch(/100 Continue/);
  });

  it('with Expect: 100-continue and a key is invited once admitted, and its body read', async ({ server }) => {
    const body = JSON.stringify({ name: 'Rex', categoryId: 1 });
    const connection = openConnection(server.url);
    connection.send(`POST /v1/pets HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${server.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${String(body.length)}\r\nExpect: 100-continue\r\n\r\n`);
    // The body goes only once the service asks for it.
    const invited = await new Promise<string>((resolve) => {
      connection.socket.once('data', (chunk: Buffer) => {
        resolve(chunk.toString('latin1'));
      });
    });
    expect(invited).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
    connection.send(body);
    const { answer } = await connection.closed(8);
    expect(answer.slice(answer.indexOf('HTTP/1.1 201'))).toMatch(/^HTTP\/1\.1 201 /);
  });
});

describe('a chunked body with bare line feeds', () => {
  it('is refused 400 at once and the connection closed, not left to its time running out', async ({ server }) => {
    const started = performance.now();
    const { answer, closedAfterS } = await exchangeOnce(
      server.url,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.apiKey}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\n{"a":\n0\n\n`,
      20,
    );
    expect(statusOf(answer)).toBe(400);
    expect(JSON.parse(bodyOf(answer))).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    expect(closedAfterS).toBeDefined();
    // Well inside HEADERS_TIMEOUT_MS + BODY_TIMEOUT_MS (40 s), after which it would be a 408.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('a client that leaves before its answer', () => {
  it('leaves an access line that records no answer was sent (499), not the answer it would have had', async ({ startServer }) => {
    const { logger, lines } = collectedLogger();
    const running = await startServer({}, logger);
    const connection = openConnection(running.url);
    connection.send(`POST /v1/pets HTTP/1.1\r\nHost: x\r\nX-Request-Id: gone\r\nAuthorization: Bearer ${running.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`);
    await pause(300);
    connection.socket.destroy();
    await pause(500);
    expect(accessLines(lines)).toMatchObject([{ reqId: 'gone', res: { statusCode: 499 } }]);
  });
});

describe('/readyz while it fails', () => {
  it('logs once that the service is not ready, not once per answer', async ({ storage }) => {
    const service = await startInstance({ ...storage.env, SHUTDOWN_DELAY_MS: '3000' });
    const stopped = service.stop();
    await pause(300);
    const statuses = await Promise.all(Array.from({ length: 100 }, async () => (await fetch(`${service.url}/readyz`)).status));
    expect(new Set(statuses)).toEqual(new Set([503]));
    await stopped;
    const notReady = service.output().split('\n').filter((line) => line.includes('not ready'));
    expect(notReady).toHaveLength(1);
    expect(notReady[0]).not.toMatch(/"stack"/);
  }, 30_000);
});
