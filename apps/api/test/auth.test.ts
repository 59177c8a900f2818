import { createApiKeys } from '@petstore/core';
import { describe, expect } from 'vitest';
import { TEST_MOUNT, type TestServer, it } from '../src/testing/index.js';
import { call, expectError, rawRequest } from './support/http.js';

describe('the API key comes first', () => {
  // Each of these is wrong in some other way too; without a valid key, only the key is reported.
  const requests: [string, string, Parameters<typeof call>[2]][] = [
    ['listPets', '/v1/pets', {}],
    ['listPets with a bad limit', '/v1/pets?limit=0', {}],
    ['createPet', '/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 1 } }],
    ['createPet with a bad body', '/v1/pets', { method: 'POST', json: { id: 1 } }],
    ['createPet with malformed JSON', '/v1/pets', { method: 'POST', body: '{', headers: { 'Content-Type': 'application/json' } }],
    ['createPet as text/plain', '/v1/pets', { method: 'POST', body: 'Rex', headers: { 'Content-Type': 'text/plain' } }],
    ['getPet', '/v1/pets/1', {}],
    ['getPet with a bad id', '/v1/pets/abc', {}],
    ['an unknown path', '/v1/nothing-here', {}],
    ['a wrong method', '/v1/pets', { method: 'DELETE' }],
  ];

  it.for(requests)('refuses %s without a key with 401', async ([, path, options], { server }) => {
    const body = await expectError(await call(server, path, { ...options, key: null }), 401, 'UNAUTHORIZED');
    expect(body.message).toMatch(/Missing API key/);
  });

  it.for(requests)('refuses %s with a wrong key with 401', async ([, path, options], { server }) => {
    const body = await expectError(await call(server, path, { ...options, key: 'pst_000000000000_nope' }), 401, 'UNAUTHORIZED');
    expect(body.message).toBe('Invalid API key.');
  });

  it('refuses an oversized body without a key with 401, not 413', async ({ server }) => {
    const response = await rawRequest(server.url, {
      path: '/v1/pets',
      headers: { 'Content-Type': 'application/json' },
      chunks: ['{"name":"', 'x'.repeat(70_000), '"}'],
    });
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });
});

describe('the Authorization header', () => {
  const withHeader = (server: TestServer, authorization: string) =>
    call(server, '/v1/pets', { key: null, headers: { Authorization: authorization } });

  it.for(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('accepts the scheme spelt %s', async (scheme, { server }) => {
    expect((await withHeader(server, `${scheme} ${server.apiKey}`)).status).toBe(200);
  });

  it.for<[string, (key: string) => string]>([
    ['another scheme', (key) => `Basic ${key}`],
    ['no scheme', (key) => key],
    ['no key', () => 'Bearer'],
    ['a key with a character added', (key) => `Bearer ${key}x`],
    ['a prefix of the key', (key) => `Bearer ${key.slice(0, -1)}`],
    ['the key in another case', (key) => `Bearer ${key.toUpperCase()}`],
    ['two keys', (key) => `Bearer ${key} ${key}`],
    ['the key quoted', (key) => `Bearer "${key}"`],
  ])('refuses %s', async ([, header], { server }) => {
    await expectError(await withHeader(server, header(server.apiKey)), 401, 'UNAUTHORIZED');
  });

  // The instance holds a key it authenticated for API_KEY_CACHE_MS; a revocation made elsewhere
  // (another process, the CLI) is seen once the hold ends, and at once when the hold is 0.
  it.for([
    ['0', 0],
    ['300', 350],
  ] as const)('refuses a key revoked elsewhere once its hold ends (API_KEY_CACHE_MS=%s)', async ([holdMs, waitMs], { startServer }) => {
    const server = await startServer({ API_KEY_CACHE_MS: holdMs });
    const elsewhere = createApiKeys(server.db.apiKeys);
    const { token } = await elsewhere.create('short-lived');
    expect((await call(server, '/v1/pets', { key: token })).status).toBe(200);
    await elsewhere.revoke('short-lived');
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    await expectError(await call(server, '/v1/pets', { key: token }), 401, 'UNAUTHORIZED');
    expect((await call(server, '/trpc/listPets', { key: token })).status).toBe(401);
  });
});

describe('what needs no key', () => {
  // Health belongs to the service's own app: a host app that mounts the API has its own.
  const open = TEST_MOUNT === 'express' ? ['/v1/openapi.json'] : ['/v1/openapi.json', '/healthz', '/readyz'];
  it.for(open)('serves %s without a key', async (path, { server }) => {
    const response = await call(server, path, { key: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('the tRPC endpoint', () => {
  it('refuses a call without a key with 401 and the bearer challenge', async ({ server }) => {
    const response = await call(server, '/trpc/listPets', { key: null });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
    expect(await response.json()).toMatchObject({ error: { data: { code: 'UNAUTHORIZED', httpStatus: 401 } } });
  });

  it('serves the same procedures with the same key', async ({ server }) => {
    const response = await call(server, '/trpc/listPets');
    expect(response.status).toBe(200);
    // Over tRPC a page carries its own cursor (the shape tRPC's infinite queries read).
    expect(await response.json()).toEqual({ result: { data: { items: expect.any(Array), nextCursor: null } } });
  });
});
