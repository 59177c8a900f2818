import { Agent } from 'node:http';
import { type Socket, connect } from 'node:net';
import type { Pet } from '@petstore/core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { DEFAULT_SHUTDOWN_IDLE_MS } from '../src/settings/config.js';
import { type TestStorage, createTestStorage, nextPageLink } from '../src/testing/index.js';
import { type Outcome, send } from './support/keep-alive-load.js';
import { spawnEntry, waitForOutput } from './support/processes.js';

/**
 * A rolling deploy, as a container platform runs one: the service gets SIGTERM while keep-alive
 * clients keep sending. Every request it took is answered, every answer from the signal on closes
 * its connection, and it exits as soon as the last one is done.
 */

const CLIENTS = 32;
const LOAD_BEFORE_SIGNAL_MS = 1_500;

/** A process of the service, with what it printed and when it exited. */
const startService = async (storage: TestStorage, env: Record<string, string> = {}) => {
  const child = spawnEntry('src/main.ts', [], { PORT: '0', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'info', ...storage.env, ...env });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => { resolve({ code, at: performance.now() }); }));
  const printed = await waitForOutput(child, /"msg":"Petstore is listening"/);
  const port = Number(/"port":(\d+)/.exec(printed)?.[1]);
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    firstKey: /^ {2}(pst_\S+)$/m.exec(printed)?.[1],
    exited,
    output: () => stdout,
    /** The request ids in the access lines printed after the `stopping` line, and before it. */
    accessLog: () => {
      const lines = stdout.split('\n').filter((line) => line.startsWith('{'));
      const stopAt = lines.findIndex((line) => line.includes('"msg":"stopping'));
      const ids = (part: string[]) => part.map((line) => /"reqId":"([^"]+)","req"/.exec(line)?.[1]).filter((id) => id !== undefined);
      return { before: new Set(ids(lines.slice(0, stopAt))), after: new Set(ids(lines.slice(stopAt))) };
    },
  };
};

const storedPets = async (url: string, key: string) => {
  const stored = new Map<number, Pet>();
  let page: string | undefined = '/v1/pets?limit=100';
  while (page) {
    const response = await fetch(`${url}${page}`, { headers: { Authorization: `Bearer ${key}` } });
    for (const pet of (await response.json()) as Pet[]) stored.set(pet.id, pet);
    page = nextPageLink(response);
  }
  return stored;
};

/** A request whose headers are sent and whose body is not, yet: taken, and still running. */
const startSlowCreate = async (port: number, key: string) => {
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const body = JSON.stringify({ name: 'Slowpoke', categoryId: 3 });
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  const closed = new Promise<void>((resolve) => socket.once('close', () => { resolve(); }));
  socket.on('error', () => undefined);
  socket.write(
    `POST /v1/pets HTTP/1.1\r\nHost: petstore\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
  );
  return {
    // The rest of the body, the socket left open: the service closes it after its answer.
    finish: () => socket.write(body.slice(5)),
    /** Everything the service wrote back, once it has closed the connection. */
    answer: async () => {
      await closed;
      return answer;
    },
  };
};

const refusesConnections = (port: number) =>
  new Promise<string | undefined>((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => { resolve(error.code); });
  });

/** Storage of the test's own: each test counts what it stored from nothing. */
const freshStorage = async () => {
  const storage = await createTestStorage();
  onTestFinished(() => storage.dispose());
  return storage;
};

/**
 * How much later than its setting a step may come on a machine whose cores are busy with other work:
 * each bound below is the setting it exercises plus this, still short of the next thing the service
 * could wrongly wait for (the idle bound, or the grace of DEFAULT_SHUTDOWN_GRACE_MS).
 */
const BUSY_MACHINE_MS = 3_000;

/** Sends SIGTERM and expects a clean exit at least `atLeastMs` after it, and then at once. */
const stopsWithin = async (service: Awaited<ReturnType<typeof startService>>, atLeastMs: number) => {
  const signalledAt = performance.now();
  service.child.kill('SIGTERM');
  const exit = await service.exited;
  expect(exit.code).toBe(0);
  expect(exit.at - signalledAt).toBeGreaterThanOrEqual(atLeastMs);
  expect(exit.at - signalledAt).toBeLessThan(atLeastMs + BUSY_MACHINE_MS);
};

const loggedStopMs = (output: string) => Number(/"ms":(\d+),"msg":"stopped"/.exec(output)?.[1] ?? Number.NaN);

describe('a rolling deploy: SIGTERM under keep-alive load', () => {
  it('answers every request it took, closes each connection after the signal, and exits at once', async () => {
    const storage = await freshStorage();
    const service = await startService(storage);
    const key = service.firstKey ?? '';
    const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
    const outcomes = new Map<string, { method: string; name?: string; outcome: Outcome }>();
    let sent = 0;
    const worker = async (client: number) => {
      // Each client goes on until the service refuses it: its connection closed, no new one taken.
      for (let turn = 0; ; turn++) {
        const id = `deploy-${client}-${turn}`;
        const create = (client + turn) % 2 === 0;
        const name = `deploy ${client}/${turn}`;
        sent++;
        const outcome = create
          ? await send(agent, service.url, key, id, 'POST', '/v1/pets', JSON.stringify({ name, categoryId: 1 + (turn % 9) }))
          : await send(agent, service.url, key, id, 'GET', '/v1/pets?limit=20');
        outcomes.set(id, { method: create ? 'POST' : 'GET', ...(create ? { name } : {}), outcome });
        if (outcome.kind === 'failed') return;
      }
    };
    const load = Promise.all(Array.from({ length: CLIENTS }, (_, client) => worker(client)));
    await new Promise((resolve) => setTimeout(resolve, LOAD_BEFORE_SIGNAL_MS));
    const signalledAt = performance.now();
    service.child.kill('SIGTERM');
    await load;
    agent.destroy();
    const exit = await service.exited;
    const exitMs = Math.round(exit.at - signalledAt);
    expect(exit.code).toBe(0);

    const all = [...outcomes.entries()];
    const answered = all.filter(([, { outcome }]) => outcome.kind === 'answered');
    const failed = all.filter(([, { outcome }]) => outcome.kind === 'failed');
    const { before, after } = service.accessLog();
    // Lost: a request the service answered (its access line) whose answer the client never read.
    const lost = [...before, ...after].filter((id) => outcomes.get(id)?.outcome.kind !== 'answered');
    expect(lost).toEqual([]);
    expect(answered.every(([, { outcome }]) => outcome.kind === 'answered' && (outcome.status === 200 || outcome.status === 201))).toBe(true);
    // A request that failed was never taken: no access line for it.
    expect(failed.filter(([id]) => before.has(id) || after.has(id))).toEqual([]);
    // Every answer written after the signal closes its connection.
    const afterSignal = answered.filter(([id]) => after.has(id));
    expect(afterSignal.length).toBeGreaterThan(0);
    expect(afterSignal.filter(([, { outcome }]) => outcome.kind === 'answered' && outcome.headers.connection !== 'close')).toEqual([]);
    expect(service.output()).not.toMatch(/grace ran out/);
    // Requests that take milliseconds are done, and the stores closed (the service's own `stopped`
    // line), before an idle connection would have been closed: nothing waited for the idle bound.
    // The process then ends as its event loop empties, which on a busy machine takes a moment more.
    expect(loggedStopMs(service.output())).toBeLessThan(DEFAULT_SHUTDOWN_IDLE_MS);
    expect(exitMs).toBeLessThan(loggedStopMs(service.output()) + BUSY_MACHINE_MS);

    // After a restart, the creates the service acknowledged are all there, and no other.
    const second = await startService(storage);
    const stored = await storedPets(second.url, key);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    const acknowledged = answered.filter(([, { method, outcome }]) => method === 'POST' && outcome.kind === 'answered' && outcome.status === 201);
    const storedNames = new Set([...stored.values()].map((pet) => pet.name));
    expect(acknowledged.filter(([, { name }]) => !storedNames.has(name ?? ''))).toEqual([]);
    expect(stored.size).toBe(acknowledged.length);

    const resets = failed.filter(([, { outcome }]) => outcome.kind === 'failed' && outcome.code !== 'ECONNREFUSED').length;
    console.log(
      `rolling deploy: ${sent} requests from ${CLIENTS} keep-alive clients; SIGTERM; ${afterSignal.length} answered after it with Connection: close; ` +
        `${lost.length} lost; ${failed.length - resets} refused a new connection, ${resets} reset before being taken; ` +
        `exit ${exitMs} ms after the signal (logged ${loggedStopMs(service.output())} ms); ${acknowledged.length} acknowledged creates, all present after a restart`,
    );
  }, 60_000);

  it('answers a request still arriving, through a second signal, while refusing new connections', async () => {
    const storage = await freshStorage();
    const service = await startService(storage);
    const key = service.firstKey ?? '';
    const idle = await send(new Agent({ keepAlive: true }), service.url, key, 'before', 'GET', '/v1/pets');
    expect(idle.kind === 'answered' && idle.headers.connection).toBe('keep-alive');
    const slow = await startSlowCreate(service.port, key);
    // The headers are in: the request is taken before the signal.
    await new Promise((resolve) => setTimeout(resolve, 100));
    service.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    // `pnpm start` passes a second signal on: it must not cut the request still running.
    service.child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await refusesConnections(service.port)).toBe('ECONNREFUSED');
    expect(service.child.exitCode).toBeNull();
    slow.finish();
    const answer = await slow.answer();
    expect(answer).toMatch(/^HTTP\/1\.1 201 Created\r\n/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toMatch(/"name":"Slowpoke"/);
    const exit = await service.exited;
    expect(exit.code).toBe(0);
    expect(service.output()).toMatch(/"msg":"stopped"/);

    const second = await startService(storage);
    const names = [...(await storedPets(second.url, key)).values()].map((pet) => pet.name);
    second.child.kill('SIGTERM');
    await second.exited;
    expect(names).toEqual(['Slowpoke']);
  }, 90_000);

  it(`leaves an idle keep-alive connection ${DEFAULT_SHUTDOWN_IDLE_MS} ms for its client, as a proxy's pool needs: a create written on it after the signal is answered, and closes it`, async () => {
    const storage = await freshStorage();
    const service = await startService(storage);
    const key = service.firstKey ?? '';
    // One connection, as nginx keeps one in its pool: a read, then quiet through the signal.
    const connection = connect(service.port, '127.0.0.1');
    await new Promise((resolve) => connection.once('connect', resolve));
    let received = '';
    connection.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const closed = new Promise<number>((resolve) => connection.once('close', () => { resolve(performance.now()); }));
    connection.on('error', () => undefined);
    const answers = async (count: number) => {
      while ((received.match(/^HTTP\/1\.1 /gm) ?? []).length < count) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    connection.write(`GET /v1/pets HTTP/1.1\r\nHost: petstore\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    await answers(1);
    const signalledAt = performance.now();
    service.child.kill('SIGTERM');
    // Well past a first glance at idle connections, well within the proxy's own idle timeout (nginx: 4 s).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const body = JSON.stringify({ name: 'Late', categoryId: 1 });
    connection.write(`POST /v1/pets HTTP/1.1\r\nHost: petstore\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    const closedAt = await closed;
    const second = received.slice(received.lastIndexOf('HTTP/1.1 '));
    expect(second).toMatch(/^HTTP\/1\.1 201 Created\r\n/);
    expect(second).toMatch(/\r\nConnection: close\r\n/i);
    // The answer closed the last connection: the stop ends then, before the idle bound would have
    // closed it (DEFAULT_SHUTDOWN_IDLE_MS from the signal, 1.5 s of which had passed when it was sent).
    const exit = await service.exited;
    expect(exit.code).toBe(0);
    expect(closedAt - signalledAt).toBeLessThan(DEFAULT_SHUTDOWN_IDLE_MS);
    expect(exit.at - signalledAt).toBeLessThan(DEFAULT_SHUTDOWN_IDLE_MS);
  });

  it('closes an idle keep-alive connection once SHUTDOWN_IDLE_MS has passed, and exits then', async () => {
    const storage = await freshStorage();
    const service = await startService(storage, { SHUTDOWN_IDLE_MS: '600' });
    const idle = await send(new Agent({ keepAlive: true }), service.url, service.firstKey ?? '', 'idle', 'GET', '/v1/pets');
    expect(idle.kind === 'answered' && idle.headers.connection).toBe('keep-alive');
    await stopsWithin(service, 600);
    expect(service.output()).not.toMatch(/grace ran out/);
  });

  it('cuts a request still running when the grace runs out, and exits then', async () => {
    const storage = await freshStorage();
    const service = await startService(storage, { SHUTDOWN_GRACE_MS: '300' });
    const slow = await startSlowCreate(service.port, service.firstKey ?? '');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await stopsWithin(service, 300);
    expect(await slow.answer()).toBe('');
    expect(service.output()).toMatch(/"graceMs":300,"msg":"stopping: the grace ran out/);
  });

  it('with SHUTDOWN_DELAY_MS, keeps serving that long with /readyz at 503, then stops', async () => {
    const storage = await freshStorage();
    const service = await startService(storage, { SHUTDOWN_DELAY_MS: '800' });
    const key = service.firstKey ?? '';
    const readyBefore = await send(false, service.url, key, 'ready-before', 'GET', '/readyz');
    expect(readyBefore.kind === 'answered' && readyBefore.status).toBe(200);
    const signalledAt = performance.now();
    service.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const ready = await send(false, service.url, key, 'ready', 'GET', '/readyz');
    expect(ready.kind === 'answered' && ready.status).toBe(503);
    expect(ready.kind === 'answered' && JSON.parse(ready.body)).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.stringMatching(/stopping/) });
    // Still serving, on new connections too, each closed after its answer.
    const served = await send(false, service.url, key, 'served', 'GET', '/v1/pets');
    expect(served.kind === 'answered' && [served.status, served.headers.connection]).toEqual([200, 'close']);
    const exit = await service.exited;
    expect(exit.code).toBe(0);
    expect(exit.at - signalledAt).toBeGreaterThanOrEqual(800);
    expect(exit.at - signalledAt).toBeLessThan(2_000);
  });
});
