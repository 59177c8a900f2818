import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect } from 'vitest';
import { OVERLOAD_RETRY_AFTER_SECONDS } from '../src/front-door/overload.js';
import { DEFAULT_OVERLOAD_DELAY_MS } from '../src/settings/config.js';
import { it } from '../src/testing/index.js';
import { call } from './support/http.js';
import { createKeys } from './support/keys.js';
import { runLoad } from './support/open-loop.js';
import { exchangeOnce, requestText, statusOf } from './support/raw-connection.js';
import { startInstance } from './support/service-instance.js';
import { seedSqliteStore } from '@petstore/core/testing';

/**
 * Load shedding by the service's own queue (front-door/overload.ts): a host that does not run the
 * service for a while delays every answer and sheds none, while more work than the service can do
 * is cut, and what it admits is answered in time.
 */

describe('a service its host does not run for a while', () => {
  it('serves every request of a client, however late, and stays ready: stopped 200 ms in every 220 for 6 s', async ({ storage }) => {
    const service = await startInstance({ ...storage.env, OVERLOAD_DELAY_MS: String(DEFAULT_OVERLOAD_DELAY_MS), RATE_LIMIT_PER_MINUTE: '0' });
    const [key = ''] = await createKeys(storage.env, 1);
    const starving = { on: true };
    // What a starved host or a spent CPU quota does to a process: it is simply not run.
    const starve = (async () => {
      while (starving.on) {
        process.kill(service.pid, 'SIGSTOP');
        await sleep(200);
        process.kill(service.pid, 'SIGCONT');
        await sleep(20);
      }
    })();
    try {
      const statuses: number[] = [];
      const until = performance.now() + 6_000;
      while (performance.now() < until) {
        const path = statuses.length % 5 === 4 ? '/readyz' : '/v1/pets?limit=5';
        const { answer } = await exchangeOnce(service.url, requestText('GET', path, { Authorization: `Bearer ${key}` }), 10);
        statuses.push(statusOf(answer));
      }
      expect(statuses.length).toBeGreaterThan(5);
      expect(new Set(statuses)).toEqual(new Set([200]));
    } finally {
      starving.on = false;
      await starve;
      process.kill(service.pid, 'SIGCONT');
      await service.stop();
    }
  }, 30_000);
});

/**
 * How many times its capacity the load offers: the load runs in this test's process on the same
 * cores, so what it achieves falls short of what it asks on a busy machine; asked thrice, it still
 * brings twice.
 */
const OVERLOAD_FACTOR = 3;

/**
 * The target this service sheds past. The load keeps one request in flight on each of its 1,000
 * connections, and the service reads one at a time from each, so the work it can have ahead is
 * 1,000 pages; at the default target (100 ms) that is barely past it on a fast Node (Node 22 answered
 * every request at 1.4 times its measured capacity, and shed none). A quarter of it leaves room
 * four times over, while the closed-loop capacity run (16 connections, a few ms ahead) sheds nothing.
 */
const OVERLOAD_TARGET_MS = DEFAULT_OVERLOAD_DELAY_MS / 4;

describe('more work than the service can do', () => {
  // What an admitted request waits is bounded in the service's own work (twice the target ahead of
  // it); in time, a host that runs the service late stretches it, by design, and this machine runs
  // other suites on the same cores: the figure is logged, not asserted, and the decision record
  // (2026-11-28-shedding-by-the-services-own-backlog.md) gives it measured on a quiet machine.
  it('is shed with 503 and Retry-After, and recovers once the load is gone: open-loop load at twice capacity', async ({ storage }) => {
    // Pages of a hundred: work for the service, next to nothing for the load's own process on the same cores.
    await seedSqliteStore(storage.env.PETSTORE_DB ?? '', 150);
    const service = await startInstance({ ...storage.env, OVERLOAD_DELAY_MS: String(OVERLOAD_TARGET_MS), RATE_LIMIT_PER_MINUTE: '0' });
    const [key = ''] = await createKeys(storage.env, 1);
    try {
      const request = `GET /v1/pets?limit=100 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`;
      // Independent users, as many as MAX_CONNECTIONS lets in: each connection sends its next request on schedule once
      // its last is answered, so the requests the service has not answered pile up in it.
      const shape = { url: service.url, request, connections: 1_000, maxOutstanding: 1 };
      // What it answers with every answer awaited: its capacity, on this machine, now.
      const capacity = await runLoad({ ...shape, seconds: 2, connections: 16 });
      const overload = await runLoad({ ...shape, seconds: 4 }, OVERLOAD_FACTOR * capacity.perSecond);
      const admitted = overload.percentileMs(200, 0.99);
      console.log(
        `capacity ${Math.round(capacity.perSecond)}/s (p99 ${Math.round(capacity.percentileMs(200, 0.99))} ms); at thrice it asked: ${overload.sent} sent (${Math.round(overload.sent / 4 / capacity.perSecond * 10) / 10}×), ${JSON.stringify(overload.statuses)}, ${overload.unanswered} unanswered, admitted p50 ${Math.round(overload.percentileMs(200, 0.5))} and p99 ${Math.round(admitted)} ms, shed p99 ${Math.round(overload.percentileMs(503, 0.99))} ms`,
      );
      expect(capacity.statuses).toEqual({ 200: capacity.sent - capacity.unanswered });
      expect(overload.unanswered).toBe(0);
      expect(overload.statuses[503]).toBeGreaterThan(0);
      expect(Object.keys(overload.statuses).sort()).toEqual(['200', '503']);
      const shed = overload.firstOf[503] ?? '';
      expect(shed).toMatch(new RegExp(`\r\nRetry-After: ${String(OVERLOAD_RETRY_AFTER_SECONDS)}\r\n`, 'i'));
      expect(JSON.parse(shed.slice(shed.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      expect(service.output()).toMatch(/"msg":"overloaded: /);
      // Shed only while overloaded: it serves again once the load is gone.
      await sleep(1_000);
      const after = await call({ url: service.url, apiKey: key }, '/v1/pets?limit=1');
      expect(after.status).toBe(200);
      expect(after.headers.get('retry-after')).toBeNull();
    } finally {
      await service.stop();
    }
  }, 60_000);

});

describe('a burst the service drains', () => {
  it('is never shed: 200 requests at once all answered', async ({ startServer }) => {
    // Two hundred connections from one address: more than the default share, which is not what is tested here.
    const running = await startServer({ OVERLOAD_DELAY_MS: String(DEFAULT_OVERLOAD_DELAY_MS), MAX_CONNECTIONS_PER_ADDRESS: '256' });
    const answers = await Promise.all(Array.from({ length: 200 }, () => call(running, '/v1/pets?limit=1')));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
  });
});
