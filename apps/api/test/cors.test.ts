import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORS_EXPOSED_HEADERS } from '../src/front-door/cors.js';
import { type TestServer, startTestServer } from '../src/testing/index.js';
import { launchChromium } from '../src/testing/chromium.js';
import { call } from './support/http.js';

/** A page on an origin of its own (another port is another origin) that calls the API with fetch. */
const servePage = async (): Promise<{ origin: string; server: Server }> => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>app</title><p>app</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
};

let api: TestServer;
let allowed: { origin: string; server: Server };
let other: { origin: string; server: Server };
let browser: Browser;

beforeAll(async () => {
  allowed = await servePage();
  other = await servePage();
  api = await startTestServer({ CORS_ORIGINS: `https://app.example.com, ${allowed.origin}` });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser.close();
  await api.dispose();
  for (const page of [allowed, other]) page.server.close();
});

const preflight = (origin: string, path = '/v1/pets', to: TestServer = api) =>
  fetch(`${to.url}${path}`, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key' },
  });

describe('CORS over HTTP', () => {
  it.each(['/v1/pets', '/trpc/createPet'])('answers a preflight to %s with 204 before the key check', async (path) => {
    const response = await preflight(allowed.origin, path);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(allowed.origin);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET,HEAD,POST');
    expect(response.headers.get('access-control-allow-headers')).toMatch(/Authorization.*Content-Type.*Idempotency-Key/);
    expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
  });

  it('exposes the headers clients must read', async () => {
    const response = await call(api, '/v1/pets', { headers: { Origin: allowed.origin } });
    expect(response.headers.get('access-control-allow-origin')).toBe(allowed.origin);
    expect(response.headers.get('access-control-expose-headers')?.split(',')).toEqual(CORS_EXPOSED_HEADERS);
    expect(CORS_EXPOSED_HEADERS).toEqual(
      expect.arrayContaining(['Link', 'Location', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'Deprecation', 'Sunset', 'X-Request-Id', 'Idempotent-Replayed']),
    );
  });

  it('gives an origin that is not listed no CORS headers', async () => {
    const response = await preflight(other.origin);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect((await call(api, '/v1/pets', { headers: { Origin: other.origin } })).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('sends no CORS headers at all when CORS_ORIGINS is unset', async () => {
    const plain = await startTestServer();
    try {
      const response = await call(plain, '/v1/pets', { headers: { Origin: allowed.origin } });
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      const refused = await preflight(allowed.origin, '/v1/pets', plain);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      // Not a preflight any more: an OPTIONS request like any other, which needs a key.
      expect(refused.status).toBe(401);
    } finally {
      await plain.dispose();
    }
  });
});

/** Runs in the page: lists, creates, follows the next page's Link; what a browser app would do. */
const useTheApi = async ({ url, key }: { url: string; key: string }) => {
  const headers = { Authorization: `Bearer ${key}` };
  const created = await fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json', 'Idempotency-Key': 'from-the-browser' },
    body: JSON.stringify({ name: 'Browsed', categoryId: 9 }),
  });
  await fetch(`${url}/v1/pets`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Second', categoryId: 9 }) });
  const first = await fetch(`${url}/v1/pets?limit=1`, { headers });
  const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
  const second = next ? await fetch(`${url}${next}`, { headers }) : undefined;
  return {
    createdStatus: created.status,
    location: created.headers.get('location'),
    requestId: created.headers.get('x-request-id'),
    firstPage: (await first.json()) as unknown[],
    next,
    secondPage: second ? ((await second.json()) as unknown[]) : undefined,
  };
};

describe('CORS in Chromium', () => {
  it('lets a page on a listed origin list, create and follow a Link page', async () => {
    const page = await browser.newPage();
    await page.goto(allowed.origin);
    const seen = await page.evaluate(useTheApi, { url: api.url, key: api.apiKey });
    expect(seen.createdStatus).toBe(201);
    expect(seen.location).toMatch(/^\/v1\/pets\/\d+$/);
    expect(seen.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.firstPage).toHaveLength(1);
    expect(seen.next).toMatch(/^\/v1\/pets\?limit=1&cursor=/);
    expect(seen.secondPage).toHaveLength(1);
    await page.close();
  });

  it('has the browser refuse a page on an origin not listed', async () => {
    const page = await browser.newPage();
    await page.goto(other.origin);
    const outcome = await page.evaluate(async ({ url, key }) => {
      try {
        await fetch(`${url}/v1/pets`, { headers: { Authorization: `Bearer ${key}` } });
        return 'answered';
      } catch (error) {
        return String(error);
      }
    }, { url: api.url, key: api.apiKey });
    expect(outcome).toMatch(/TypeError/);
    await page.close();
  });
});
