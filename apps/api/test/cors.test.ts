import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { operations } from '@petstore/core';
import { CORS_EXPOSED_HEADERS } from '../src/front-door/cors.js';
import { type TestServer, it, nextPageLink } from '../src/testing/index.js';
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

/** Two pages: one on an origin the service allows, one on an origin it does not. */
// eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
const test = it.extend('pages', { scope: 'file' }, async ({}, { onCleanup }) => {
  const allowed = await servePage();
  const other = await servePage();
  onCleanup(() => {
    for (const page of [allowed, other]) page.server.close();
  });
  return { allowed, other };
});
// The allowed page's origin is known only once it listens.
test.override('serverEnv', ({ pages }) => ({ CORS_ORIGINS: `https://app.example.com, ${pages.allowed.origin}` }));

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(() => browser.close());

const preflight = (to: TestServer, origin: string, path = '/v1/pets') =>
  fetch(`${to.url}${path}`, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key' },
  });

describe('CORS over HTTP', () => {
  test.for(['/v1/pets', '/trpc/createPet'])('answers a preflight to %s with 204 before the key check', async (path, { server, pages: { allowed } }) => {
    const response = await preflight(server, allowed.origin, path);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(allowed.origin);
    // tRPC's methods, and each REST operation's own: a browser app may call every operation.
    const allowedMethods = response.headers.get('access-control-allow-methods')?.split(',') ?? [];
    const needed = ['GET', 'HEAD', 'POST', ...Object.values(operations).flatMap(({ meta }) => (meta.openapi ? [meta.openapi.method] : []))];
    expect(needed.filter((method) => !allowedMethods.includes(method))).toEqual([]);
    expect(response.headers.get('access-control-allow-headers')).toMatch(/Authorization.*Content-Type.*Idempotency-Key.*trpc-accept/);
    expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
  });

  test('exposes the headers clients must read', async ({ server, pages: { allowed } }) => {
    const response = await call(server, '/v1/pets', { headers: { Origin: allowed.origin } });
    expect(response.headers.get('access-control-allow-origin')).toBe(allowed.origin);
    expect(response.headers.get('access-control-expose-headers')?.split(',')).toEqual(CORS_EXPOSED_HEADERS);
    expect(CORS_EXPOSED_HEADERS).toEqual(
      expect.arrayContaining(['Link', 'Location', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'Deprecation', 'Sunset', 'X-Request-Id', 'Idempotent-Replayed']),
    );
  });

  test('gives an origin that is not listed no CORS headers', async ({ server, pages: { other } }) => {
    const response = await preflight(server, other.origin);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect((await call(server, '/v1/pets', { headers: { Origin: other.origin } })).headers.get('access-control-allow-origin')).toBeNull();
  });

  test('sends no CORS headers at all when CORS_ORIGINS is unset', async ({ startServer, pages: { allowed } }) => {
    const plain = await startServer();
    const response = await call(plain, '/v1/pets', { headers: { Origin: allowed.origin } });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const refused = await preflight(plain, allowed.origin, '/v1/pets');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    // Not a preflight any more: an OPTIONS request like any other, which needs a key.
    expect(refused.status).toBe(401);
  });
});

/** Runs in the page: creates and lists, as a browser app would; the Link is read there, where CORS decides what is seen. */
const createAndList = async ({ url, key }: { url: string; key: string }) => {
  const headers = { Authorization: `Bearer ${key}` };
  const created = await fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json', 'Idempotency-Key': 'from-the-browser' },
    body: JSON.stringify({ name: 'Browsed', categoryId: 9 }),
  });
  await fetch(`${url}/v1/pets`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Second', categoryId: 9 }) });
  const first = await fetch(`${url}/v1/pets?limit=1`, { headers });
  return {
    createdStatus: created.status,
    location: created.headers.get('location'),
    requestId: created.headers.get('x-request-id'),
    firstPage: (await first.json()) as unknown[],
    link: first.headers.get('link'),
  };
};

/** Runs in the page: follows the next page's Link. */
const fetchPage = async ({ url, key, path }: { url: string; key: string; path: string }) =>
  (await (await fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${key}` } })).json()) as unknown[];

describe('CORS in Chromium', () => {
  test('lets a page on a listed origin list, create and follow a Link page', async ({ server, pages: { allowed } }) => {
    const page = await browser.newPage();
    await page.goto(allowed.origin);
    const as = { url: server.url, key: server.apiKey };
    const seen = await page.evaluate(createAndList, as);
    const next = nextPageLink(new Response(null, { headers: seen.link === null ? {} : { link: seen.link } }));
    const secondPage = next ? await page.evaluate(fetchPage, { ...as, path: next }) : undefined;
    expect(seen.createdStatus).toBe(201);
    expect(seen.location).toMatch(/^\/v1\/pets\/\d+$/);
    expect(seen.requestId).toMatch(/^[A-Za-z0-9_-]{12}\.[0-9a-z]+$/);
    expect(seen.firstPage).toHaveLength(1);
    expect(next).toMatch(/^\/v1\/pets\?limit=1&cursor=/);
    expect(secondPage).toHaveLength(1);
    await page.close();
  });

  test('has the browser refuse a page on an origin not listed', async ({ server, pages: { other } }) => {
    const page = await browser.newPage();
    await page.goto(other.origin);
    const outcome = await page.evaluate(async ({ url, key }) => {
      try {
        await fetch(`${url}/v1/pets`, { headers: { Authorization: `Bearer ${key}` } });
        return 'answered';
      } catch (error) {
        return String(error);
      }
    }, { url: server.url, key: server.apiKey });
    expect(outcome).toMatch(/TypeError/);
    await page.close();
  });
});
