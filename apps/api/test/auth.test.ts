import { createApiKeys } from '@petstore/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_MOUNT, type TestServer, startTestServer } from '../src/testing/index.js';
import { call, expectError, rawRequest } from './support/http.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.dispose());

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

  it.each(requests)('refuses %s without a key with 401', async (_, path, options) => {
    const body = await expectError(await call(server, path, { ...options, key: null }), 401, 'UNAUTHORIZED');
    expect(body.message).toMatch(/Missing API key/);
  });

  it.each(requests)('refuses %s with a wrong key with 401', async (_, path, options) => {
    const body = await expectError(await call(server, path, { ...options, key: 'pst_000000000000_nope' }), 401, 'UNAUTHORIZED');
    expect(body.message).toBe('Invalid API key.');
  });

  it('refuses an oversized body without a key with 401, not 413', async () => {
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
  const withHeader = (authorization: string) =>
    call(server, '/v1/pets', { key: null, headers: { Authorization: authorization } });

  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('accepts the scheme spelt %s', async (scheme) => {
    expect((await withHeader(`${scheme} ${server.apiKey}`)).status).toBe(200);
  });

  it.each([
    ['another scheme', () => `Basic ${server.apiKey}`],
    ['no scheme', () => server.apiKey],
    ['no key', () => 'Bearer'],
    ['a key with a character added', () => `Bearer ${server.apiKey}x`],
    ['a prefix of the key', () => `Bearer ${server.apiKey.slice(0, -1)}`],
    ['the key in another case', () => `Bearer ${server.apiKey.toUpperCase()}`],
    ['two keys', () => `Bearer ${server.apiKey} ${server.apiKey}`],
    ['the key quoted', () => `Bearer "${server.apiKey}"`],
  ])('refuses %s', async (_, header) => {
    await expectError(await withHeader(header()), 401, 'UNAUTHORIZED');
  });

  it('refuses a revoked key at once', async () => {
    const keys = createApiKeys(server.db.apiKeys);
    const { token } = await keys.create('short-lived');
    expect((await call(server, '/v1/pets', { key: token })).status).toBe(200);
    await keys.revoke('short-lived');
    await expectError(await call(server, '/v1/pets', { key: token }), 401, 'UNAUTHORIZED');
    expect((await call(server, '/trpc/listPets', { key: token })).status).toBe(401);
  });
});

describe('what needs no key', () => {
  // Health belongs to the service's own app: a host app that mounts the API has its own.
  const open = TEST_MOUNT === 'express' ? ['/v1/openapi.json'] : ['/v1/openapi.json', '/healthz', '/readyz'];
  it.each(open)('serves %s without a key', async (path) => {
    const response = await call(server, path, { key: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('the tRPC endpoint', () => {
  it('refuses a call without a key with 401 and the bearer challenge', async () => {
    const response = await call(server, '/trpc/listPets', { key: null });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
    expect(await response.json()).toMatchObject({ error: { data: { code: 'UNAUTHORIZED', httpStatus: 401 } } });
  });

  it('serves the same procedures with the same key', async () => {
    const response = await call(server, '/trpc/listPets');
    expect(response.status).toBe(200);
    // Over tRPC a page carries its own cursor (the shape tRPC's infinite queries read).
    expect(await response.json()).toEqual({ result: { data: { items: expect.any(Array), nextCursor: null } } });
  });
});
