import { describe, expect } from 'vitest';
import { TEST_ENGINE, it } from '../src/testing/index.js';
import { call } from './support/http.js';
import { exchangeOnce, statusOf } from './support/raw-connection.js';

// One failed authentication a minute per address: the second bad key is a 429.
it.override({ serverEnv: { METRICS_PORT: '0', AUTH_FAILURES_PER_MINUTE: '1' } });

let metricsUrl: string;
it.beforeAll(({ server }) => {
  if (!server.metricsUrl) throw new Error('METRICS_PORT is set: the server should serve /metrics');
  metricsUrl = server.metricsUrl;
});

const scrape = async () => {
  const response = await fetch(metricsUrl);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
};

/** The value of one sample, or undefined when the text has no such sample; labels in any order. */
const sample = (text: string, name: string, labels: Record<string, string> = {}): number | undefined => {
  for (const line of text.split('\n')) {
    const parsed = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!parsed || parsed[1] !== name) continue;
    const found: Record<string, string | undefined> = Object.fromEntries(
      [...(parsed[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1] ?? '', match[2] ?? '']),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value) && Object.keys(found).length === Object.keys(labels).length) {
      return Number(parsed[3]);
    }
  }
  return undefined;
};

const count = (text: string, method: string, route: string, status: string) =>
  sample(text, 'http_server_request_duration_seconds_count', { method, route, status }) ?? 0;

describe('GET /metrics on METRICS_PORT', () => {
  it('counts known traffic by method, route template and status', async ({ server }) => {
    const before = await scrape();
    const created = await call(server, '/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 1 }, headers: { 'Idempotency-Key': 'metrics-1' } });
    const id = ((await created.json()) as { id: number }).id;
    const replay = await call(server, '/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 1 }, headers: { 'Idempotency-Key': 'metrics-1' } });
    expect([created.status, replay.status]).toEqual([201, 201]);
    for (let i = 0; i < 3; i++) expect((await call(server, `/v1/pets/${id}`)).status).toBe(200);
    expect((await call(server, '/v1/pets/999999')).status).toBe(404);
    expect((await call(server, '/v1/pets?limit=2')).status).toBe(200);
    expect((await fetch(`${server.url}/trpc/listPets`, { headers: { Authorization: `Bearer ${server.apiKey}` } })).status).toBe(200);
    expect((await call(server, '/v1/pets', { key: 'pst_wrong' })).status).toBe(401);
    expect((await call(server, '/v1/pets', { key: 'pst_wrong' })).status).toBe(429);

    const after = await scrape();
    const grew = (method: string, route: string, status: string) => count(after, method, route, status) - count(before, method, route, status);
    expect(grew('GET', '/v1/pets/{petId}', '200')).toBe(3);
    expect(grew('GET', '/v1/pets/{petId}', '404')).toBe(1);
    expect(grew('GET', '/v1/pets', '200')).toBe(1);
    expect(grew('POST', '/v1/pets', '201')).toBe(2);
    expect(grew('GET', '/trpc/listPets', '200')).toBe(1);
    // The key is checked before the route is looked at: a refused key has no route.
    expect(grew('GET', 'unmatched', '401')).toBe(1);
    expect(grew('GET', 'unmatched', '429')).toBe(1);
    // Raw URLs never become labels.
    const routes = new Set([...after.matchAll(/route="([^"]*)"/g)].map((match) => match[1]));
    expect([...routes].sort()).toEqual(['/trpc/listPets', '/v1/pets', '/v1/pets/{petId}', 'unmatched']);

    const delta = (name: string) => (sample(after, name) ?? 0) - (sample(before, name) ?? 0);
    expect(delta('petstore_rate_limit_refusals_total')).toBe(1);
    expect(delta('petstore_idempotent_replays_total')).toBe(1);
    expect(sample(after, 'http_server_requests_in_flight')).toBe(0);
  });

  it('counts what the front door answers before any transport: a request without Host, one Node cannot parse', async ({ server }) => {
    const before = await scrape();
    const hostless = await exchangeOnce(server.url, 'GET /v1/pets HTTP/1.1\r\nConnection: close\r\n\r\n');
    const unparseable = await exchangeOnce(server.url, 'GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n');
    expect([statusOf(hostless.answer), statusOf(unparseable.answer)]).toEqual([400, 400]);
    const after = await scrape();
    expect(count(after, 'GET', 'unmatched', '400') - count(before, 'GET', 'unmatched', '400')).toBe(2);
    expect(sample(after, 'http_server_requests_in_flight')).toBe(0);
  });

  it('has the process default metrics, and the pool on PostgreSQL', async () => {
    const text = await scrape();
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    const total = sample(text, 'petstore_db_pool_connections', { state: 'total' });
    if (TEST_ENGINE === 'postgres') expect(total).toBeGreaterThan(0);
    else expect(total).toBeUndefined();
  });

  it('counts a request in flight until it is answered', async ({ server }) => {
    // A body that is still arriving keeps its request in flight.
    const { request } = await import('node:http');
    const req = request(`${server.url}/v1/pets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server.apiKey}`, 'Content-Type': 'application/json', 'Content-Length': '40' },
    });
    const answered = new Promise<number>((resolve) => req.on('response', (res) => { res.resume(); resolve(res.statusCode ?? 0); }));
    req.write('{"name":"Slow",');
    await expect.poll(async () => sample(await scrape(), 'http_server_requests_in_flight')).toBe(1);
    req.end('"categoryId":1}'.padEnd(25, ' '));
    expect(await answered).toBe(201);
    expect(sample(await scrape(), 'http_server_requests_in_flight')).toBe(0);
  });

  it('is not served on the public port, and the metrics port serves nothing else', async ({ server }) => {
    const publicMetrics = await fetch(`${server.url}/metrics`);
    expect(publicMetrics.status).toBe(404);
    expect(await publicMetrics.text()).not.toMatch(/http_server_request_duration_seconds/);
    expect((await fetch(new URL('/v1/pets', metricsUrl))).status).toBe(404);
  });

  it('is off without METRICS_PORT', async ({ startServer }) => {
    const plain = await startServer();
    expect(plain.metricsUrl).toBeUndefined();
  });
});
