import { createRequire } from 'node:module';
import fc from 'fast-check';
import type * as PromClient from 'prom-client';
import { expect, it } from 'vitest';
import { createRequestDurations } from './request-durations.js';

const { Histogram, Registry } = createRequire(import.meta.url)('prom-client') as typeof PromClient;

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const NAME = 'http_server_request_duration_seconds';
const HELP = 'Time per request.';

const observation = fc.record({
  method: fc.constantFrom('GET', 'POST', 'DELETE'),
  route: fc.constantFrom('/v1/pets', '/v1/pets/{petId}', '/trpc/listPets', 'unmatched'),
  status: fc.constantFrom(200, 201, 304, 404, 429, 503),
  // Bounds themselves included: a value on a bound falls in that bucket (`le`).
  seconds: fc.oneof(fc.constantFrom(...BUCKETS, 0, 20), fc.double({ min: 0, max: 20, noNaN: true })),
});

it('renders exactly what prom-client renders for its own Histogram given the same observations', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (observations) => {
      const ours = new Registry();
      const theirs = new Registry();
      const durations = createRequestDurations({ name: NAME, help: HELP, buckets: BUCKETS, registers: [ours] });
      const reference = new Histogram({ name: NAME, help: HELP, labelNames: ['method', 'route', 'status'], buckets: BUCKETS, registers: [theirs] });
      for (const { method, route, status, seconds } of observations) {
        durations.observe(method, route, status, seconds);
        reference.labels(method, route, String(status)).observe(seconds);
      }
      expect(await ours.metrics()).toBe(await theirs.metrics());
      expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
    }),
    { numRuns: 200 },
  );
});

it('forgets every series when the registry is reset', async () => {
  const registry = new Registry();
  const durations = createRequestDurations({ name: NAME, help: HELP, buckets: BUCKETS, registers: [registry] });
  durations.observe('GET', '/v1/pets', 200, 0.003);
  expect(await registry.metrics()).toContain(`${NAME}_count{method="GET",route="/v1/pets",status="200"} 1`);
  registry.resetMetrics();
  expect(await registry.metrics()).not.toContain(`${NAME}_count`);
});
