import { MAX_BATCH_SIZE } from '@petstore/core';
import { seedSqliteStore } from '@petstore/core/testing';
import { type Socket, connect } from 'node:net';
import { describe, expect } from 'vitest';
import { SETTINGS } from '../src/settings/config.js';
import { it } from '../src/testing/index.js';
import { startBystander } from './support/attack.js';
import { createKeys } from './support/keys.js';
import { peakRssMiBOf, resetPeakRss, rssMiBOf } from './support/raw-connection.js';
import { type ServedRoute, servedRoutes } from './support/served-routes.js';
import { startInstance } from './support/service-instance.js';
import { isAlive } from './support/processes.js';
import { MAX_PIPELINED_REQUESTS } from '../src/front-door/connections.js';

/**
 * Every route and answer kind the service serves (support/served-routes.ts finds them as a client
 * would), asked for by clients that do not take their answers: never read, pipelined and never
 * read, read at 1 KB/s; from one address and from several. The service runs as `npx pnpm start`
 * starts it (its heap caps) on a store whose answers are the largest a store can hold, with no
 * quota, so nothing but the bounds themselves holds what it may keep. docs/operating.md's
 * inventory sums those bounds: the process lives, and its peak RSS stays under what it says.
 */

/** docs/operating.md's Memory inventory: the most RSS the process may reach, whatever its clients do. */
const PEAK_RSS_MIB = 256;

const defaultOf = (key: keyof typeof SETTINGS) => SETTINGS[key].schema.parse(undefined) as number;

/** A name of 255 characters that JSON escapes to six bytes each: a page of 100 is 158 KB, a batch of 50 pages 7.9 MB. */
const WORST_STORED_NAME = '\u0001'.repeat(255);

/**
 * Requests each pipelining connection sends in one write: one more than MAX_PIPELINED_REQUESTS,
 * the deepest a connection is answered; and far past it, as deep as once took the process to its
 * heap's limit (Node makes every request of a read an object in the heap, run or not).
 */
const PIPELINED = MAX_PIPELINED_REQUESTS + 1;
const FAR_PAST_THE_DEPTH = 400;
/** How long each attack runs before its peak is read. */
const ATTACK_MS = 5_000;
/**
 * One address opens 5 connections per route (115 in all, within MAX_CONNECTIONS_PER_ADDRESS);
 * several, 3 each from 4 addresses: on each streamed or plain batch of the largest pages, 10 and
 * 24 answers of 7.9 MB, more than MAX_UNSENT_BYTES.
 */
const ONE = Array.from({ length: 5 }, () => '127.0.0.1');
const SEVERAL = Array.from({ length: 12 }, (_, index) => `127.0.1.${String(1 + (index % 4))}`);

const FAR_PAST_THE_DEPTH_READ = `pipelined ${String(FAR_PAST_THE_DEPTH)} deep, read at 1 KB/s`;
const READINGS = ['never read', 'pipelined, never read', 'read at 1 KB/s', FAR_PAST_THE_DEPTH_READ];
type Reading = (typeof READINGS)[number];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens the attack's connections on every route; returns them, to be closed when the attack is over. */
const attack = (routes: ServedRoute[], reading: Reading, addresses: string[]): { sockets: Socket[]; stop: () => void } => {
  const sockets: Socket[] = [];
  const readers: NodeJS.Timeout[] = [];
  for (const [routeIndex, route] of routes.entries()) {
    for (const [addressIndex, from] of addresses.entries()) {
      // Not flowing: nothing is read but what `read()` asks for.
      const socket = connect({ port: route.port, host: '127.0.0.1', localAddress: from }).pause();
      socket.on('error', () => undefined);
      const copies = reading === 'never read' ? 1 : reading === FAR_PAST_THE_DEPTH_READ ? FAR_PAST_THE_DEPTH : PIPELINED;
      socket.write(Array.from({ length: copies }, (_, copy) => route.request(`r${String(routeIndex)}-a${String(addressIndex)}-${String(copy)}`)).join(''));
      sockets.push(socket);
      if (reading.endsWith('read at 1 KB/s')) {
        readers.push(
          setInterval(() => {
            socket.read(Math.min(1024, socket.readableLength) || undefined);
          }, 1_000),
        );
      }
    }
  }
  return {
    sockets,
    stop: () => {
      for (const reader of readers) clearInterval(reader);
      for (const socket of sockets) socket.destroy();
    },
  };
};

describe('every route and answer kind, asked for by clients that do not take their answers', () => {
  it(`leaves the process alive under ${PEAK_RSS_MIB} MiB, from one address and from several, each way of not reading`, async ({ storage }) => {
    await seedSqliteStore(storage.env.PETSTORE_DB ?? '', 101, WORST_STORED_NAME);
    const service = await startInstance({
      ...storage.env,
      METRICS_PORT: '0',
      RATE_LIMIT_PER_MINUTE: '0',
      TRPC_ALLOW_METHOD_OVERRIDE: 'true',
      OVERLOAD_DELAY_MS: String(defaultOf('overloadDelayMs')),
    });
    const table: string[] = ['| reading | from | connections | peak RSS (MiB) | alive |', '|---|---|---|---|---|'];
    const results: { peakMiB: number; alive: boolean }[] = [];
    try {
      const metricsUrl = /"metrics":"([^"]+)"/.exec(service.output())?.[1] ?? '';
      const [bystanderKey = ''] = await createKeys(storage.env, 1, ['pets:read']);
      const routes = await servedRoutes(service.url, metricsUrl, service.printedKey ?? '', 1);
      console.log(`routes swept: ${routes.map(({ name }) => name).join('; ')}`);
      const bystander = startBystander(service.url, bystanderKey);
      for (const reading of READINGS) {
        for (const [from, addresses] of [
          ['one address', ONE],
          ['4 addresses', SEVERAL],
        ] as const) {
          if (!isAlive(service.pid)) break;
          resetPeakRss(service.pid);
          const { sockets, stop } = attack(routes, reading, [...addresses]);
          await pause(ATTACK_MS);
          const alive = isAlive(service.pid);
          const peakMiB = alive ? peakRssMiBOf(service.pid) : Infinity;
          stop();
          results.push({ peakMiB, alive });
          table.push(`| ${reading} | ${from} | ${String(sockets.length)} | ${peakMiB.toFixed(0)} | ${String(alive)} |`);
          // What the attack left is let go before the next one is measured.
          await pause(1_500);
        }
      }
      const met = await bystander.stop();
      const aliveAtEnd = isAlive(service.pid);
      // How a process that died ended: its last lines that are not access lines.
      const lastWords = aliveAtEnd ? '' : service.output().split('\n').filter((line) => !line.includes('"msg":"request ')).slice(-20).join('\n');
      console.log(`the sweep over ${String(routes.length)} routes, RSS at the end ${aliveAtEnd ? rssMiBOf(service.pid).toFixed(0) : '-'} MiB; bystander ${JSON.stringify(met)}\n${table.join('\n')}`);
      expect(routes.length).toBeGreaterThan(15);
      expect(aliveAtEnd, lastWords).toBe(true);
      expect(results).toHaveLength(2 * READINGS.length);
      for (const { peakMiB, alive } of results) {
        expect(alive).toBe(true);
        expect(peakMiB).toBeLessThanOrEqual(PEAK_RSS_MIB);
      }
      expect(met.failures).toBe(0);
    } finally {
      await service.stop();
    }
  }, 150_000);
});

/** A batch of MAX_BATCH_SIZE full pages, streamed as httpBatchStreamLink asks for it. */
const streamedBatchOfPages = (key: string, id: string) => {
  const input = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: MAX_BATCH_SIZE }, (_, index) => [index, { limit: 100 }]))));
  return `GET /trpc/${Array.from({ length: MAX_BATCH_SIZE }, () => 'listPets').join(',')}?batch=1&input=${input} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\ntrpc-accept: application/jsonl\r\nX-Request-Id: ${id}\r\n\r\n`;
};

/** Each attack on a service of its own: one that takes the process down leaves the other's figures. */
const ATTACKS: { name: string; run: (service: { url: string; metricsUrl: URL }, keys: string[], open: (port: number, from: string, data: string) => void) => void }[] = [
  {
    // As many streamed batches as two read-only keys' quota takes in a minute, from two addresses.
    name: '24 streamed batches of 50 pages from two keys on two addresses, never read',
    run: ({ url }, keys, open) => {
      for (let index = 0; index < 2 * (defaultOf('rateLimitPerMinute') / MAX_BATCH_SIZE); index++) {
        open(Number(new URL(url).port), `127.0.2.${String(1 + (index % 2))}`, streamedBatchOfPages(keys[index % 2] ?? '', `stream-${String(index)}`));
      }
    },
  },
  {
    name: '6 connections pipelining 5,000 scrapes of /metrics each, never read',
    run: ({ metricsUrl }, _keys, open) => {
      for (let index = 0; index < 6; index++) open(Number(metricsUrl.port), '127.0.0.1', `GET ${metricsUrl.pathname} HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(5_000));
    },
  },
];

describe('the attacks that once took the process down', () => {
  it(`leave it alive under ${PEAK_RSS_MIB} MiB: ${ATTACKS.map(({ name }) => name).join('; ')}`, async ({ storage }) => {
    await seedSqliteStore(storage.env.PETSTORE_DB ?? '', 101, WORST_STORED_NAME);
    const keys = await createKeys(storage.env, 2, ['pets:read']);
    const outcomes: { alive: boolean; peakMiB: number }[] = [];
    for (const { name, run } of ATTACKS) {
      const service = await startInstance({ ...storage.env, METRICS_PORT: '0', FIRST_API_KEY: 'hint', OVERLOAD_DELAY_MS: String(defaultOf('overloadDelayMs')) });
      const sockets: Socket[] = [];
      const open = (port: number, from: string, data: string) => {
        const socket = connect({ port, host: '127.0.0.1', localAddress: from }).pause();
        socket.on('error', () => undefined);
        socket.write(data);
        sockets.push(socket);
      };
      try {
        const metricsUrl = new URL(/"metrics":"([^"]+)"/.exec(service.output())?.[1] ?? 'http://127.0.0.1:1/metrics');
        resetPeakRss(service.pid);
        run({ url: service.url, metricsUrl }, keys, open);
        await pause(ATTACK_MS);
        const alive = isAlive(service.pid);
        const outcome = { alive, peakMiB: alive ? peakRssMiBOf(service.pid) : Infinity };
        console.log(`${name}: ${JSON.stringify(outcome)}`);
        outcomes.push(outcome);
      } finally {
        for (const socket of sockets) socket.destroy();
        await service.stop();
      }
    }
    for (const { alive, peakMiB } of outcomes) {
      expect(alive).toBe(true);
      expect(peakMiB).toBeLessThanOrEqual(PEAK_RSS_MIB);
    }
  }, 60_000);
});
