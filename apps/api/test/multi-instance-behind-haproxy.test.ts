import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect } from 'vitest';
import { it } from '../src/testing/index.js';
import { CHECK_EVERY_MS, FAILED_CHECKS_TO_LEAVE } from './support/haproxy-config.js';
import { type RunningHaproxy, startHaproxy } from './support/haproxy.js';
import { createKeys } from './support/keys.js';
import { figuresOf, isSuccess, keepAliveLoad } from './support/keep-alive-load.js';
import { startBusyNeighbours } from './support/neighbours.js';
import { freePort } from './support/redis-server.js';
import { type ServiceInstance, startInstance } from './support/service-instance.js';

// Two instances behind Debian's HAProxy, which takes an instance out after three failed `/readyz`
// checks and back after two good ones, restarted one after the other under keep-alive load while
// two neighbours keep both cores busy. Readiness says whether an instance can take work, never how
// loaded it is: instances under the same host pressure never leave the pool together, and nothing
// is refused. Each instance is set up as docs/operating.md (Stopping) says for a balancer that
// learns of a stop from its health checks: SHUTDOWN_DELAY_MS above the time those take to fail.
// (A multi-instance file: it runs in the PostgreSQL project only.)

const CLIENTS = 32;
const LOAD_BOUNDS = { maxRequests: 300_000, maxMs: 60_000 };
const STEADY_MS = 2_000;
// HAProxy goes on connecting to a stopping instance until its checks have failed; a connection
// still queued when the instance's listener closes is reset, and HAProxy resets its client's.
// Two checks' time more than the failures take, for a host whose cores are busy.
const SHUTDOWN_DELAY_MS = (FAILED_CHECKS_TO_LEAVE + 2) * CHECK_EVERY_MS;

let haproxy: RunningHaproxy;
let apiKey: string;
let storageEnv: Record<string, string>;
const ports: number[] = [];
const instances: ServiceInstance[] = [];

const startOn = async (slot: number) => {
  instances[slot] = await startInstance({ ...storageEnv, RATE_LIMIT_PER_MINUTE: '1000000', REDIS_TIMEOUT_MS: '250', SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS), PORT: String(ports[slot]) });
};
const ready = async (slot: number) => {
  const deadline = Date.now() + 10_000;
  while ((await fetch(`http://127.0.0.1:${String(ports[slot])}/readyz`).then((response) => response.status, () => 0)) !== 200) {
    if (Date.now() > deadline) throw new Error(`instance ${String(slot)} not ready`);
    await sleep(20);
  }
};

it.beforeAll(async ({ storage }) => {
  storageEnv = storage.env;
  ports.push(await freePort(), await freePort());
  await startOn(0);
  await startOn(1);
  [apiKey = ''] = await createKeys(storageEnv, 1);
  haproxy = await startHaproxy(ports.map((port) => `127.0.0.1:${String(port)}`));
}, 60_000);

afterAll(async () => {
  await haproxy.dispose();
  expect(await Promise.all(instances.map((instance) => instance.stop()))).toEqual([0, 0]);
});

describe('behind HAProxy with health checks on /readyz', () => {
  it('answers every request 2xx while the instances restart one after the other, beside two busy neighbours', async () => {
    const neighbours = startBusyNeighbours(2);
    const load = keepAliveLoad({ url: haproxy.url, apiKey, clients: CLIENTS, run: 'haproxy', ...LOAD_BOUNDS });
    try {
      await sleep(STEADY_MS);
      for (const slot of [0, 1]) {
        expect(await instances[slot]?.stop()).toBe(0);
        await startOn(slot);
        await ready(slot);
        // Back in HAProxy's pool (two good checks) before the other one stops.
        await sleep(1_500);
      }
      await sleep(STEADY_MS);
    } finally {
      await load.finish();
      await neighbours.stop();
    }
    const notOk = load.sent.filter((request) => !isSuccess(request));
    console.log(`rolling restart through HAProxy: ${JSON.stringify(figuresOf(load.sent))}`);
    expect(
      notOk.map(({ method, outcome }) => ({ method, outcome: outcome.kind === 'answered' ? outcome.status : outcome.code })),
      haproxy.output(),
    ).toEqual([]);
  }, 120_000);
});
