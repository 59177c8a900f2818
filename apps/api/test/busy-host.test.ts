import type { Pet } from '@petstore/core';
import { describe, expect } from 'vitest';
import { nextPageLink } from '../src/testing/index.js';
import { it } from '../src/testing/index.js';
import { cpuQuotaUnavailable, limitCpu } from './support/cpu-quota.js';
import { call } from './support/http.js';
import { createKeys } from './support/keys.js';
import { startBusyNeighbours } from './support/neighbours.js';
import { runLoad } from './support/open-loop.js';
import { startInstance } from './support/service-instance.js';

/**
 * The service on a host it shares: neighbours that keep both cores busy, or a CPU quota as a
 * container platform enforces one. It sheds only the overload it causes itself (front-door/
 * overload.ts), so at a load it can serve, however late the host runs it, nothing is refused and
 * it stays ready. Each service runs as `npx pnpm start` starts it, shedding on as it ships.
 */

/** How many of each: `{ "200": 26, "404": 2 }`. */
const tally = (values: number[]) => JSON.stringify(values.reduce<Record<string, number>>((counts, value) => ({ ...counts, [value]: (counts[value] ?? 0) + 1 }), {}));

/** Every operation and refusal of the contract, one request at a time, each checked against the document. */
const walkTheContract = async (server: { url: string; apiKey: string }) => {
  const statuses: number[] = [];
  const seen = (response: Response) => {
    statuses.push(response.status);
    return response;
  };
  const created: Pet[] = [];
  for (let index = 0; index < 20; index++) {
    const response = seen(await call(server, '/v1/pets', { method: 'POST', json: { name: `Neighbourly ${String(index)}`, categoryId: 1 + (index % 5), status: index % 2 === 0 ? 'available' : 'sold' } }));
    created.push((await response.json()) as Pet);
  }
  let page: string | undefined = '/v1/pets?limit=3&status=available';
  while (page) {
    const response = seen(await call(server, page));
    await response.arrayBuffer();
    page = nextPageLink(response);
  }
  for (const pet of created) await seen(await call(server, `/v1/pets/${String(pet.id)}`)).arrayBuffer();
  for (const [path, options] of [
    ['/v1/pets/987654321', {}],
    ['/v1/pets/abc', {}],
    ['/v1/pets?limit=0', {}],
    ['/v1/pets', { key: null }],
    ['/v1/pets', { method: 'POST', json: { name: 'No category' } }],
    ['/v1/pets', { method: 'POST', body: 'not json', headers: { 'Content-Type': 'application/json' } }],
    ['/v1/nothing', {}],
  ] as const) {
    await seen(await call(server, path, options)).arrayBuffer();
  }
  for (const path of ['/trpc/listPets?input=%7B%22limit%22%3A5%7D', `/trpc/getPet?input=%7B%22petId%22%3A${String(created[0]?.id)}%7D`]) {
    const response = await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${server.apiKey}` } });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
};

describe('a host whose other tenants keep both cores busy', () => {
  it('answers the contract, one request at a time, without a single 503', async ({ storage }) => {
    const service = await startInstance({ ...storage.env, RATE_LIMIT_PER_MINUTE: '0' });
    const neighbours = startBusyNeighbours(2);
    try {
      const [apiKey = ''] = await createKeys(storage.env, 1);
      const statuses = await walkTheContract({ url: service.url, apiKey });
      console.log(`the contract beside two busy neighbours: ${String(statuses.length)} requests, ${tally(statuses)}`);
      expect(statuses.length).toBeGreaterThan(50);
      expect(statuses.filter((status) => status >= 500)).toEqual([]);
      expect(statuses.filter((status) => status < 400).length).toBeGreaterThan(40);
    } finally {
      await neighbours.stop();
      await service.stop();
    }
  }, 120_000);
});

const unavailable = cpuQuotaUnavailable();

/** Half a core, and lists a second that take a good part of it on a busy two-core machine. */
const QUOTA_MS = 50;
const RATE = 300;

describe('a CPU quota of 50 ms per 100 ms, as Kubernetes enforces `limits.cpu: 500m`', () => {
  it.skipIf(unavailable !== undefined)(`refuses nothing at a load it can serve, and never fails readiness${unavailable ? ` (skipped: ${unavailable})` : ''}`, async ({ storage }) => {
    const service = await startInstance({ ...storage.env, RATE_LIMIT_PER_MINUTE: '0' });
    const quota = limitCpu(service.pid, { quotaMs: QUOTA_MS, periodMs: 100 });
    try {
      const [key = ''] = await createKeys(storage.env, 1);
      const readiness: number[] = [];
      const polling = { on: true };
      const poll = (async () => {
        while (polling.on) {
          readiness.push((await fetch(`${service.url}/readyz`)).status);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      const request = `GET /v1/pets?limit=20 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`;
      const load = await runLoad({ url: service.url, request, seconds: 5, connections: 8, maxOutstanding: 16 }, RATE);
      polling.on = false;
      await poll;
      const throttled = quota.throttledPeriods();
      console.log(`under a quota of ${String(QUOTA_MS)} ms per 100 ms at ${String(RATE)}/s: ${JSON.stringify(load.statuses)}, p99 ${Math.round(load.percentileMs(200, 0.99))} ms, readiness ${tally(readiness)}, throttled in ${String(throttled)} periods`);
      expect(load.statuses).toEqual({ 200: load.sent });
      expect(new Set(readiness)).toEqual(new Set([200]));
    } finally {
      quota.release();
      await service.stop();
    }
  }, 60_000);
});
