import { type Socket, connect } from 'node:net';
import { describe, expect } from 'vitest';
import { it } from '../src/testing/index.js';
import { createKeys } from './support/keys.js';
import { startBusyNeighbours } from './support/neighbours.js';
import { startInstance } from './support/service-instance.js';

/**
 * A client past its address's share of connections (MAX_CONNECTIONS_PER_ADDRESS) is told so with
 * an answer it can act on, a 503 with `Retry-After` and `Connection: close`, never a reset: a reset
 * says nothing of whether a create ran. The service runs as `npx pnpm start` starts it.
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `request` on a connection of its own and resolves with all that came back, or the error that ended it. */
const roundTrip = (port: number, request: string) =>
  new Promise<{ answer: string; error: string | undefined }>((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let answer = '';
    let error: string | undefined;
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', (failure: NodeJS.ErrnoException) => (error = failure.code ?? failure.message));
    socket.once('close', () => {
      resolve({ answer, error });
    });
    socket.write(request);
    setTimeout(() => socket.destroy(), 5_000).unref();
  });

describe('connections past an address share', () => {
  it('each get one answer and close: a 503 with Retry-After and Connection: close on the public and the metrics port alike, a health check as usual; one that sends nothing is closed within a second or two', async ({ storage }) => {
    const service = await startInstance({ ...storage.env, MAX_CONNECTIONS_PER_ADDRESS: '4', METRICS_PORT: '0' });
    const port = Number(new URL(service.url).port);
    const metricsPort = Number(new URL(/"metrics":"([^"]+)"/.exec(service.output())?.[1] ?? 'http://x:1').port);
    const held: Socket[] = [];
    try {
      const [key = ''] = await createKeys(storage.env, 1, ['pets:read']);
      // The address's share, held: keep-alive connections that have been answered once.
      for (let index = 0; index < 4; index++) {
        const socket = connect({ port, host: '127.0.0.1' });
        socket.on('error', () => undefined);
        socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
        held.push(socket);
      }
      await pause(300);
      const lists = await Promise.all(Array.from({ length: 12 }, () => roundTrip(port, `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`)));
      const readiness = await roundTrip(port, 'GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n');
      const scrape = await roundTrip(metricsPort, 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
      const idleOpenedAt = performance.now();
      const idle = await roundTrip(port, '');
      const idleMs = performance.now() - idleOpenedAt;
      console.log(`past the share: lists ${lists.map(({ answer, error }) => error ?? answer.slice(9, 12)).join(' ')}; /readyz ${readiness.answer.slice(9, 12)}; /metrics ${scrape.answer.slice(9, 12)}; an idle one closed after ${idleMs.toFixed(0)} ms`);
      for (const { error } of [...lists, readiness, scrape, idle]) expect(error).toBeUndefined();
      for (const { answer } of [...lists, scrape]) {
        expect(answer).toMatch(/^HTTP\/1\.1 503 /);
        expect(answer).toMatch(/\r\nRetry-After: 1\r\n/i);
        expect(answer).toMatch(/\r\nConnection: close\r\n/i);
      }
      expect(JSON.parse(lists[0]?.answer.slice(lists[0].answer.indexOf('\r\n\r\n') + 4) ?? '')).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      // A load balancer polling from a busy client's address sees the instance as it is.
      expect(readiness.answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(readiness.answer).toMatch(/\r\nConnection: close\r\n/i);
      // One that sends nothing is closed without an answer.
      expect(idle.answer).toBe('');
      expect(idleMs).toBeLessThan(2_500);
    } finally {
      for (const socket of held) socket.destroy();
      await service.stop();
    }
  }, 60_000);
});

/** The figures: one address, 100 lists a second, beside 20 spinning processes. */
const RATE = 100;
const SECONDS = 5;
/** The client's own deadline for one request: past it the host, not the service, is what failed. */
const CLIENT_DEADLINE_MS = 15_000;
const NEIGHBOURS = 20;

/**
 * Run by hand (`PETSTORE_TEST_HEAVY_CLIENT=1`), not in CI: beside 20 spinners the service and this
 * client each get a twentieth of a core, and what a run meets depends on the scheduler more than on
 * the service (one run of 500: 1 reset and 1 socket closed; another: none, 490 client deadlines).
 */
describe.runIf(process.env.PETSTORE_TEST_HEAVY_CLIENT === '1')('a legitimate heavy client on a host whose other processes keep both cores busy', () => {
  it(`at ${String(RATE)} lists/s beside ${String(NEIGHBOURS)} busy processes meets no connection error, and /readyz from its address never fails`, async ({ storage }) => {
    const service = await startInstance({ ...storage.env, RATE_LIMIT_PER_MINUTE: '0' });
    // The key is made before the neighbours start: the command's own start is not what is measured.
    const [key = ''] = await createKeys(storage.env, 1, ['pets:read']);
    const neighbours = startBusyNeighbours(NEIGHBOURS);
    try {
      const statuses: Record<string, number> = {};
      const errors: Record<string, number> = {};
      const readiness: Record<string, number> = {};
      const count = (tally: Record<string, number>, what: string) => (tally[what] = (tally[what] ?? 0) + 1);
      /** A connection error's code (ECONNRESET, UND_ERR_SOCKET…), or the client's own TimeoutError. */
      const failureOf = (error: unknown) => (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      const requests: Promise<unknown>[] = [];
      const polling = { on: true };
      const poll = (async () => {
        while (polling.on) {
          await fetch(`${service.url}/readyz`, { signal: AbortSignal.timeout(CLIENT_DEADLINE_MS) }).then(
            async (response) => {
              await response.arrayBuffer();
              count(readiness, String(response.status));
            },
            (error: unknown) => count(readiness, failureOf(error)),
          );
          await pause(200);
        }
      })();
      // Open loop: a list every 10 ms whether or not the ones before were answered, as a busy client sends them.
      const started = performance.now();
      for (let sent = 0; sent < RATE * SECONDS; sent++) {
        const due = started + (sent * 1000) / RATE;
        if (due > performance.now()) await pause(due - performance.now());
        requests.push(
          fetch(`${service.url}/v1/pets?limit=20`, { headers: { Authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(CLIENT_DEADLINE_MS) }).then(
            async (response) => {
              await response.arrayBuffer();
              count(statuses, String(response.status));
            },
            (error: unknown) => count(errors, failureOf(error)),
          ),
        );
      }
      await Promise.all(requests);
      polling.on = false;
      await poll;
      await neighbours.stop();
      console.log(`${String(RATE * SECONDS)} lists at ${String(RATE)}/s beside ${String(NEIGHBOURS)} busy processes: ${JSON.stringify(statuses)}, connection errors ${JSON.stringify(errors)}; /readyz ${JSON.stringify(readiness)}`);
      // The client's own deadline passing is the host's slowness; a reset or a socket closed without an answer is the service's.
      const { TimeoutError: timedOut = 0, ...connectionErrors } = errors;
      const { TimeoutError: pollsTimedOut = 0, ...readinessAnswers } = readiness;
      console.log(`timed out: ${String(timedOut)} lists, ${String(pollsTimedOut)} polls`);
      expect(connectionErrors).toEqual({});
      expect(Object.keys(readinessAnswers)).toEqual(['200']);
      expect(Object.keys(statuses).filter((status) => status !== '200' && status !== '503')).toEqual([]);
    } finally {
      await neighbours.stop();
      await service.stop();
    }
  }, 170_000);
});
