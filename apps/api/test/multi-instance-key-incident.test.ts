import { setTimeout as sleep } from 'node:timers/promises';
import type { Pet } from '@petstore/core';
import { afterAll, describe, expect } from 'vitest';
import { DEFAULT_API_KEY_CACHE_MS } from '../src/settings/config.js';
import { type TestStorage, it } from '../src/testing/index.js';
import { call } from './support/http.js';
import { collect, spawnEntry } from './support/processes.js';
import { type ServiceInstance, startInstance } from './support/service-instance.js';

// A key leaks, as a team meets it: two instances on one PostgreSQL and one Redis, each holding the
// key as it does by default (API_KEY_CACHE_MS), the app mid-way through a create it retries. The
// team rotates, then revokes the name. (A multi-instance file: it runs in the PostgreSQL project only.)

let instances: ServiceInstance[];
const figures: Record<string, unknown> = {};

const keysCli = (storage: TestStorage, ...args: string[]) => collect(spawnEntry('src/cli/keys.ts', args, storage.env));
const lastLine = (stdout: string) => stdout.trimEnd().split('\n').at(-1) ?? '';
const on = (index: number, apiKey: string) => ({ url: instances[index]?.url ?? '', apiKey });
/** The status each instance answers `key` with, in order. */
const statusesOf = (key: string) => Promise.all(instances.map(async (_, index) => (await call(on(index, key), '/v1/pets?limit=1')).status));

it.beforeAll(async ({ storage }) => {
  // The failed-key throttle off: the test asks again and again with keys that are being revoked.
  instances = await Promise.all([0, 1].map(() => startInstance({ AUTH_FAILURES_PER_MINUTE: '0', ...storage.env })));
}, 60_000);

afterAll(async () => {
  const codes = await Promise.all(instances.map((instance) => instance.stop()));
  console.log(`key incident: ${JSON.stringify(figures)}`);
  expect(codes).toEqual([0, 0]);
});

describe('a leaked key on two instances', () => {
  it('rotated then revoked by name: the retried create replays, and both keys are refused on both instances within API_KEY_CACHE_MS', async ({ storage }) => {
    const created = await keysCli(storage, 'create', 'team');
    expect(created.stderr).toMatch(/^Store: PostgreSQL database \S+ on \S+ as \S+ \(DATABASE_URL\)\n/);
    const oldKey = lastLine(created.stdout);
    const bystander = lastLine((await keysCli(storage, 'create', 'other-app')).stdout);
    // Both instances now hold the key, as they do for API_KEY_CACHE_MS after a request.
    expect(await statusesOf(oldKey)).toEqual([200, 200]);

    const body = { name: 'Rex', categoryId: 1 };
    const first = await call(on(0, oldKey), '/v1/pets', { method: 'POST', json: body, headers: { 'Idempotency-Key': 'incident-1' } });
    expect(first.status).toBe(201);
    const animal = (await first.json()) as Pet;

    const rotated = await keysCli(storage, 'rotate', 'team', '--grace', '1h');
    expect(rotated.code).toBe(0);
    const newKey = lastLine(rotated.stdout);
    // The app, redeployed with the new key, retries the create it never saw answered: on the other instance.
    const retry = await call(on(1, newKey), '/v1/pets', { method: 'POST', json: body, headers: { 'Idempotency-Key': 'incident-1' } });
    expect([retry.status, retry.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(((await retry.json()) as Pet).id).toBe(animal.id);
    expect([await statusesOf(oldKey), await statusesOf(newKey)]).toEqual([
      [200, 200],
      [200, 200],
    ]);

    const revoked = await keysCli(storage, 'revoke', 'team');
    const revokedAt = performance.now();
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(/^Revoked key \d+ "team"\.\nRevoked key \d+ "team"\.\nRunning servers refuse them within API_KEY_CACHE_MS/);

    // Until the holds end, each instance may still answer; how soon each refuses is the figure.
    const refusedAfterMs: Record<string, number> = {};
    while (performance.now() - revokedAt < DEFAULT_API_KEY_CACHE_MS) {
      for (const [name, key] of [['old', oldKey], ['new', newKey]] as const) {
        for (const [index, status] of (await statusesOf(key)).entries()) {
          if (status === 401) refusedAfterMs[`${name} on ${index}`] ??= Math.round(performance.now() - revokedAt);
        }
      }
      await sleep(50);
    }
    // Each instance read the rows before the revocation committed, so no hold outlives it by more than API_KEY_CACHE_MS.
    await sleep(Math.max(0, revokedAt + DEFAULT_API_KEY_CACHE_MS + 50 - performance.now()));
    expect([await statusesOf(oldKey), await statusesOf(newKey), await statusesOf(bystander)]).toEqual([
      [401, 401],
      [401, 401],
      [200, 200],
    ]);
    figures.revokedByName = refusedAfterMs;
  }, 120_000);

  it('rotated with --grace 0: the old key is refused on both instances within API_KEY_CACHE_MS, the new one works', async ({ storage }) => {
    const oldKey = lastLine((await keysCli(storage, 'create', 'mobile')).stdout);
    expect(await statusesOf(oldKey)).toEqual([200, 200]);
    const rotated = await keysCli(storage, 'rotate', 'mobile', '--grace', '0');
    const rotatedAt = performance.now();
    expect(rotated.stdout).toMatch(/^Rotated key \d+ "mobile": it no longer works; running servers refuse it within API_KEY_CACHE_MS/);
    const newKey = lastLine(rotated.stdout);
    await sleep(Math.max(0, rotatedAt + DEFAULT_API_KEY_CACHE_MS + 50 - performance.now()));
    expect([await statusesOf(oldKey), await statusesOf(newKey)]).toEqual([
      [401, 401],
      [200, 200],
    ]);
  }, 60_000);
});
