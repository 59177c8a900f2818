import { type ApiKeyScope, createApiKeys } from '@petstore/core';
import { describe, expect } from 'vitest';
import { type TestServer, it } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';

let reader: string;
let writer: string;
it.beforeAll(async ({ server }) => {
  const keys = createApiKeys(server.db.apiKeys);
  const made = (name: string, scopes: ApiKeyScope[]) => keys.create(name, { scopes }).then(({ token }) => token);
  reader = await made('reader', ['pets:read']);
  writer = await made('writer', ['pets:write']);
  // An animal for the gets, made by the server's first key, which has every scope.
  expect((await call(server, '/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 1 } })).status).toBe(201);
});

const challenge = (scope: string) => `Bearer realm="petstore", error="insufficient_scope", scope="${scope}"`;

const expectForbidden = async (response: Response, scope: string) => {
  expect(response.headers.get('www-authenticate')).toBe(challenge(scope));
  return response;
};

const trpc = (server: TestServer, key: string, path: string, init: RequestInit = {}) =>
  fetch(`${server.url}/trpc/${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${key}`, ...(init.body !== undefined && { 'Content-Type': 'application/json' }) },
  });

interface Envelope {
  result?: { data: unknown };
  error?: { message: string; data: { code: string; httpStatus: number } };
}

describe('a key with pets:read only', () => {
  it('lists and gets over REST (200), and is refused a create with 403 and the challenge', async ({ server }) => {
    expect((await call(server, '/v1/pets', { key: reader })).status).toBe(200);
    expect((await call(server, '/v1/pets/1', { key: reader })).status).toBe(200);
    const refused = await call(server, '/v1/pets', { key: reader, method: 'POST', json: { name: 'Rex', categoryId: 1 } });
    const body = await expectError(await expectForbidden(refused, 'pets:write'), 403, 'FORBIDDEN');
    expect(body.message).toBe('This API key lacks the pets:write scope.');
  });

  it('is refused before its input is validated or its body read', async ({ server }) => {
    // An invalid body and a malformed one would be 400s for a key with the scope.
    for (const body of ['{"name": ""}', '{not json']) {
      const refused = await call(server, '/v1/pets', { key: reader, method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
      await expectError(await expectForbidden(refused, 'pets:write'), 403, 'FORBIDDEN');
    }
    const trpcRefused = await expectForbidden(await trpc(server, reader, 'createPet', { method: 'POST', body: '{not json' }), 'pets:write');
    expect(trpcRefused.status).toBe(403);
  });

  it('lists and gets over tRPC, and is refused createPet with 403, the FORBIDDEN envelope and the challenge', async ({ server }) => {
    expect((await trpc(server, reader, 'listPets')).status).toBe(200);
    expect((await trpc(server, reader, `getPet?input=${encodeURIComponent('{"petId":1}')}`)).status).toBe(200);
    const refused = await expectForbidden(await trpc(server, reader, 'createPet', { method: 'POST', body: '{"name":"Rex","categoryId":1}' }), 'pets:write');
    expect(refused.status).toBe(403);
    const envelope = (await refused.json()) as Envelope;
    expect(envelope.error?.data).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 });
  });
});

describe('a key with pets:write only', () => {
  it('creates over REST (201), and is refused list and get with 403 naming pets:read', async ({ server }) => {
    expect((await call(server, '/v1/pets', { key: writer, method: 'POST', json: { name: 'Kit', categoryId: 2 } })).status).toBe(201);
    for (const path of ['/v1/pets', '/v1/pets/1', '/v1/pets?limit=0']) {
      await expectError(await expectForbidden(await call(server, path, { key: writer }), 'pets:read'), 403, 'FORBIDDEN');
    }
  });

  it('creates over tRPC, and is refused listPets and getPet with 403', async ({ server }) => {
    expect((await trpc(server, writer, 'createPet', { method: 'POST', body: '{"name":"Kit","categoryId":2}' })).status).toBe(200);
    for (const path of ['listPets', `getPet?input=${encodeURIComponent('{"petId":1}')}`]) {
      const refused = await expectForbidden(await trpc(server, writer, path), 'pets:read');
      expect(refused.status).toBe(403);
    }
  });

  it('is judged per call in a tRPC batch', async ({ server }) => {
    const reads = await trpc(server, writer, `getPet,listPets?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { petId: 1 }, 1: {} }))}`);
    expect(reads.status).toBe(403);
    const items = (await (await expectForbidden(reads, 'pets:read')).json()) as Envelope[];
    expect(items.map((item) => item.error?.data.code)).toEqual(['FORBIDDEN', 'FORBIDDEN']);

    // The reader's batch of creates: each refused for its scope, before its input is looked at.
    const creates = await trpc(server, reader, 'createPet,createPet?batch=1', { method: 'POST', body: JSON.stringify({ 0: { name: 'Kit', categoryId: 2 }, 1: {} }) });
    expect(creates.status).toBe(403);
    const answers = (await (await expectForbidden(creates, 'pets:write')).json()) as Envelope[];
    expect(answers.map((item) => item.error?.data.code)).toEqual(['FORBIDDEN', 'FORBIDDEN']);
  });
});

describe('a key with every scope', () => {
  it('is never answered 403, and no challenge is sent', async ({ server }) => {
    const listed = await call(server, '/v1/pets');
    expect(listed.status).toBe(200);
    expect(listed.headers.get('www-authenticate')).toBeNull();
  });
});
