import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect } from 'vitest';
import { OVERLOAD_RETRY_AFTER_SECONDS, OVERLOAD_WINDOW_MS } from '../src/front-door/overload.js';
import { DEFAULT_OVERLOAD_DELAY_MS } from '../src/settings/config.js';
import { it } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';

/** Keeps this process's event loop busy most of the time, as a flood of work would. */
const congest = (busyMs: number, everyMs: number) => {
  const timer = setInterval(() => {
    const until = performance.now() + busyMs;
    while (performance.now() < until) {
      // busy: nothing else runs meanwhile
    }
  }, everyMs);
  return () => {
    clearInterval(timer);
  };
};

/**
 * The threshold of the first test: above what a machine busy with other work does to this process's
 * event loop (issue 59 read a 284 ms window with both cores busy; 40 ms here read overloaded before
 * any congestion, beside two spinning processes), and far below the congestion's 2 s delays.
 */
const THRESHOLD_MS = 400;
const BUSY_MS = 2_000;

describe('an overloaded event loop', () => {
  it('sheds new requests with 503 and Retry-After, fails readiness, and recovers by itself', async ({ startServer }) => {
    const running = await startServer({ OVERLOAD_DELAY_MS: String(THRESHOLD_MS) });
    expect((await call(running, '/v1/pets')).status).toBe(200);

    // Stretches of 2 s, 10 ms apart (an interval counts from the end of the last run): the loop
    // runs I/O between them, and each window's mean holds a delay of 2 s against its few short ones.
    const release = congest(BUSY_MS, 10);
    try {
      await sleep(BUSY_MS * 2 + OVERLOAD_WINDOW_MS);
      const refused = await call(running, '/v1/pets');
      const body = await expectError(refused, 503, 'SERVICE_UNAVAILABLE');
      expect(body.message).toMatch(/overloaded/);
      expect(refused.headers.get('retry-after')).toBe(String(OVERLOAD_RETRY_AFTER_SECONDS));
      const trpc = await call(running, '/trpc/listPets');
      expect(trpc.status).toBe(503);
      expect(await trpc.json()).toMatchObject({ error: { data: { code: 'SERVICE_UNAVAILABLE', httpStatus: 503 } } });
      await expectError(await call(running, '/readyz', { key: null }), 503, 'SERVICE_UNAVAILABLE');
      expect((await call(running, '/healthz', { key: null })).status).toBe(200);
    } finally {
      release();
    }
    // The first window without a stretch in it lifts it; polled, as the last stretch may end late.
    await expect.poll(async () => (await call(running, '/readyz', { key: null })).status, { timeout: OVERLOAD_WINDOW_MS * 20, interval: OVERLOAD_WINDOW_MS }).toBe(200);
    expect((await call(running, '/v1/pets')).status).toBe(200);
  });

  // At the threshold the service ships with (100 ms): a burst the loop keeps up with is served.
  it('is never refused while the loop keeps up', async ({ startServer }) => {
    const running = await startServer({ OVERLOAD_DELAY_MS: String(DEFAULT_OVERLOAD_DELAY_MS) });
    const answers = await Promise.all(Array.from({ length: 200 }, () => call(running, '/v1/pets?limit=1')));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
  });
});
