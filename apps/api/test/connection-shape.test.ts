import diagnostics from 'node:diagnostics_channel';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { expect } from 'vitest';
import { it } from '../src/testing/index.js';

const get = (url: string, apiKey: string, agent: Agent) =>
  new Promise<number>((resolve, reject) => {
    request(url, { agent, headers: { Authorization: `Bearer ${apiKey}` } }, (res) => {
      res.resume();
      res.on('end', () => {
        resolve(res.statusCode ?? 0);
      });
    })
      .on('error', reject)
      .end();
  });

/** A socket's own properties in the order they were added: what its hidden class is made of. */
const shapeOf = (socket: Socket) => Reflect.ownKeys(socket).map(String).join(',');

it('gives every connection the same shape, whether or not admission asked its address', async ({ startServer }) => {
  const opened: Socket[] = [];
  const onOpen = (message: unknown) => {
    opened.push((message as { socket: Socket }).socket);
  };
  diagnostics.subscribe('net.server.socket', onOpen);
  const agents = [new Agent({ keepAlive: true }), new Agent({ keepAlive: true })];
  try {
    // The failed-authentication throttle is asked about a key this instance has not seen, so the
    // first connection's address is read in the middle of its request; the second one's key is
    // held by then, and nothing on its request asks.
    const running = await startServer({ AUTH_FAILURES_PER_MINUTE: '60' });
    for (const agent of agents) expect(await get(`${running.url}/v1/pets`, running.apiKey, agent)).toBe(200);
    expect(opened).toHaveLength(2);
    // Asked at different moments, Node's cached address would be a property added at different
    // points: two hidden classes for one kind of socket.
    expect(shapeOf(opened[1] as Socket)).toBe(shapeOf(opened[0] as Socket));
  } finally {
    diagnostics.unsubscribe('net.server.socket', onOpen);
    for (const agent of agents) agent.destroy();
  }
});
