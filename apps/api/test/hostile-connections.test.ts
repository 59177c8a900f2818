import { type Socket, connect } from 'node:net';
import { describe, expect } from 'vitest';
import { KEEP_ALIVE_TIMEOUT_BUFFER_MS, KEEP_ALIVE_TIMEOUT_MS } from '../src/server.js';
import { CONNECTIONS_PAST_THE_SHARE } from '../src/front-door/connections.js';
import { SETTINGS } from '../src/settings/config.js';
import { it } from '../src/testing/index.js';
import { readAnswers, startBystander } from './support/attack.js';
import { connectionsHeldFrom } from './support/raw-connection.js';
import { startInstance } from './support/service-instance.js';

/**
 * One address that opens thousands of connections and keeps them (OWASP API4:2023): it holds its
 * share and no more, and every other client still connects and is served.
 */

const defaultOf = (key: keyof typeof SETTINGS) => SETTINGS[key].schema.parse(undefined) as number;

const ATTACK_CONNECTIONS = 10_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('one address opening thousands of keep-alive connections', () => {
  it(`holds at most MAX_CONNECTIONS_PER_ADDRESS of them, and a client from another address meets no failure`, async ({ storage }) => {
    const service = await startInstance({ ...storage.env, OVERLOAD_DELAY_MS: String(defaultOf('overloadDelayMs')) });
    const port = Number(new URL(service.url).port);
    const sockets: Socket[] = [];
    try {
      const key = service.printedKey ?? '';
      const bystander = startBystander(service.url, key);
      await pause(300);
      // Each sends one keep-alive request, then nothing: held until the keep-alive timeout. What its
      // answer said is read from its own end: kept open (keep-alive) or refused (Connection: close).
      const kept = new Set<Socket>();
      for (let opened = 0; opened < ATTACK_CONNECTIONS; opened++) {
        const socket = connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        socket.once('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
        void readAnswers(socket, 1, 10_000).then(([answer]) => {
          if (answer !== undefined && !socket.destroyed && !/\r\nConnection: close(\r\n|$)/i.test(answer.head)) kept.add(socket);
        });
        socket.once('close', () => kept.delete(socket));
        sockets.push(socket);
        // A few hundred at a time, as fast as the test's own event loop opens them.
        if (opened % 500 === 499) await pause(1);
      }
      // What it goes on holding once the attack's connections have come in, before their keep-alive
      // time ends. The socket table also lists, for a moment, handshakes queued for the service and
      // connections past the share being refused (at most CONNECTIONS_PAST_THE_SHARE at once), so
      // the fewest of several looks is what it holds.
      await pause(2_500);
      let keptMost = 0;
      let held = Infinity;
      for (let look = 0; look < 5; look++) {
        keptMost = Math.max(keptMost, kept.size);
        held = Math.min(held, connectionsHeldFrom(port, '127.0.0.1'));
        await pause(200);
      }
      await pause(1_000);
      const met = await bystander.stop();
      console.log(`${ATTACK_CONNECTIONS} connections from one address: ${keptMost} kept open, ${held} in the socket table; bystander ${JSON.stringify(met)}`);
      expect(keptMost).toBeLessThanOrEqual(defaultOf('maxConnectionsPerAddress'));
      expect(keptMost).toBeGreaterThan(0);
      expect(held).toBeLessThanOrEqual(defaultOf('maxConnectionsPerAddress') + CONNECTIONS_PAST_THE_SHARE);
      expect(met.failures).toBe(0);
      expect(Object.keys(met.statuses)).toEqual(['200']);
    } finally {
      for (const socket of sockets) socket.destroy();
      await service.stop();
    }
  }, 60_000);

  it(`closes an idle keep-alive connection ${KEEP_ALIVE_TIMEOUT_MS + KEEP_ALIVE_TIMEOUT_BUFFER_MS} ms after its last answer, as docs/operating.md says`, async ({ server }) => {
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    let answeredAt = 0;
    socket.once('data', () => (answeredAt = performance.now()));
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => socket.once('close', resolve));
    const openMs = performance.now() - answeredAt;
    expect(openMs).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS + KEEP_ALIVE_TIMEOUT_BUFFER_MS - 100);
    // Node looks for idle connections once a second.
    expect(openMs).toBeLessThanOrEqual(KEEP_ALIVE_TIMEOUT_MS + KEEP_ALIVE_TIMEOUT_BUFFER_MS + 1_000 + 1_500);
  }, 30_000);
});
