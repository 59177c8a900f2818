import { describe, expect } from 'vitest';
import { VERSION } from '../src/settings/version.js';
import { it } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';

describe('every response', () => {
  const errorBody = (status: number): unknown => expect.objectContaining({ status, code: expect.any(String), message: expect.any(String) });
  // Each sample with what its JSON body must be: a parseable body of the wrong kind fails too.
  const samples: [string, string, Parameters<typeof call>[2], unknown][] = [
    ['a list', '/v1/pets', {}, expect.any(Array)],
    ['a creation', '/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 1 } }, expect.objectContaining({ id: expect.any(Number), name: 'Rex' })],
    ['a validation error', '/v1/pets?limit=0', {}, errorBody(400)],
    ['a 401', '/v1/pets', { key: null }, errorBody(401)],
    ['an unknown path under /v1', '/v1/nope', {}, errorBody(404)],
    ['an unknown path elsewhere', '/nope', {}, errorBody(404)],
    ['a wrong method', '/v1/pets/1', { method: 'POST', json: {} }, errorBody(405)],
    ['the OpenAPI document', '/v1/openapi.json', {}, expect.objectContaining({ openapi: expect.stringMatching(/^3\.1\./) })],
    ['liveness, with the version', '/healthz', {}, { status: 'ok', version: VERSION }],
    ['the tRPC endpoint', '/trpc/listPets', {}, { result: { data: expect.objectContaining({ items: expect.any(Array) }) } }],
  ];

  it.for(samples)('is JSON without X-Powered-By: %s', async ([, path, options, body], { server }) => {
    const response = await call(server, path, options);
    expect(response.headers.get('content-type')).toMatch(/^application\/json(;|$)/);
    expect(response.headers.get('x-powered-by')).toBeNull();
    expect(await response.json()).toEqual(body);
  });
});

describe('the root', () => {
  it('is a page of links to the docs page and the document, no key needed', async ({ server }) => {
    // Plain fetch: the contract's checker holds API answers to JSON, and this is a page.
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // A page that loads nothing: the API's policy, which allows nothing, fits it.
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    const html = await response.text();
    for (const link of ['/docs', '/v1/openapi.json']) expect(html).toContain(`<a href="${link}">`);
    expect(html).toContain(`Petstore ${VERSION}`);
  });

  it.for(['/index.html', '/docs/nope', '/v2'])('leaves every other path outside the API a 404: %s', async (path, { server }) => {
    await expectError(await call(server, path, { key: null }), 404, 'NOT_FOUND');
  });

  it('answers POST / with 405, as every page', async ({ server }) => {
    const response = await call(server, '/', { method: 'POST', json: {} });
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    await expectError(response, 405, 'METHOD_NOT_SUPPORTED');
  });
});

describe('errors outside the operations', () => {
  it('answers an unknown path outside /v1 with 404, no key needed', async ({ server }) => {
    await expectError(await call(server, '/nope', { key: null }), 404, 'NOT_FOUND');
  });

  it('answers an unknown path under /v1 with a valid key with 404', async ({ server }) => {
    await expectError(await call(server, '/v1/pets/1/owner'), 404, 'NOT_FOUND');
    await expectError(await call(server, '/v1/store/orders'), 404, 'NOT_FOUND');
  });

  it.for([
    { method: 'PUT', path: '/v1/pets', allow: 'GET, POST, HEAD' },
    { method: 'DELETE', path: '/v1/pets/1', allow: 'GET, HEAD' },
    { method: 'PATCH', path: '/v1/pets/1', allow: 'GET, HEAD' },
    { method: 'POST', path: '/healthz', allow: 'GET, HEAD' },
    { method: 'DELETE', path: '/v1/openapi.json', allow: 'GET, HEAD' },
  ])('answers $method $path with 405 and Allow: $allow', async ({ method, path, allow }, { server }) => {
    const response = await call(server, path, { method });
    expect(response.headers.get('allow')).toBe(allow);
    await expectError(response, 405, 'METHOD_NOT_SUPPORTED');
  });

  it('answers HEAD like GET, without a body', async ({ server }) => {
    const response = await call(server, '/v1/pets', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.text()).toBe('');
  });
});

describe('when the database fails', () => {
  it('answers 500 and 503 with the Error body and nothing about the cause', async ({ startServer }) => {
    const broken = await startServer();
    await broken.db.close();
    const crash = await expectError(await call(broken, '/v1/pets'), 500, 'INTERNAL_SERVER_ERROR');
    expect(crash.message).not.toMatch(/database|connection/i);
    const trpc = await call(broken, '/trpc/listPets');
    expect(trpc.status).toBe(500);
    expect(JSON.stringify(await trpc.json())).not.toMatch(/database|connection|stack/i);
    await expectError(await call(broken, '/readyz', { key: null }), 503, 'SERVICE_UNAVAILABLE');
    expect((await call(broken, '/healthz', { key: null })).status).toBe(200);
  });
});
