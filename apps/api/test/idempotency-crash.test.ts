import { describe, expect } from 'vitest';
import { TEST_ENGINE, it } from '../src/testing/index.js';
import { createUntilKilled, describeFigures, flushRedisPrefix, retryAndCheck, startService } from './support/idempotent-creates.js';

const CLIENTS = 32;
const KILL_AFTER_ACKS = 300;
// Rate limiting on: on PostgreSQL every request also goes through Redis, which the test flushes
// mid-load and again before the restart, as a Redis restart that keeps nothing would.
const SETTINGS = { RATE_LIMIT_PER_MINUTE: '1000000' };

describe('creates with an Idempotency-Key through a SIGKILL', () => {
  it('leave each key with exactly one animal once the unanswered ones are retried after a restart', async ({ storage }) => {
    const first = await startService({ ...storage.env, ...SETTINGS });
    const apiKey = first.printedKey ?? '';
    const load = await createUntilKilled({
      run: 'crash',
      urls: [first.url],
      apiKey,
      clients: CLIENTS,
      killAfter: KILL_AFTER_ACKS,
      kill: first.kill,
      midway: () => flushRedisPrefix(storage.env),
    });
    // The kill must have cut requests off, or nothing here was tested.
    expect(load.unanswered.length).toBeGreaterThan(0);
    await flushRedisPrefix(storage.env);

    const second = await startService({ ...storage.env, ...SETTINGS });
    const figures = await retryAndCheck({ url: second.url, apiKey }, load, 0);
    expect(await second.stop()).toBe(0);
    expect(figures.duplicates).toBe(0);
    console.log(`idempotency crash (${TEST_ENGINE}, one instance): ${describeFigures(figures)}`);
  }, 90_000);
});
