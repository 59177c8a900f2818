import { createApiKeys } from '@petstore/core';
import { describe, expect } from 'vitest';
import { type TestServer, it } from '../src/testing/index.js';
import { call, expectError, petsCount } from './support/http.js';

const create = (server: TestServer, json: unknown, idempotencyKey?: string, key = server.apiKey) =>
  call(server, '/v1/pets', { method: 'POST', json, key, headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {} });

describe('POST /v1/pets with an Idempotency-Key', () => {
  it('answers a retry with the original 201 and creates nothing', async ({ server }) => {
    const before = await petsCount(server);
    const first = await create(server, { name: 'Rex', categoryId: 1 }, 'retry-1');
    const retry = await create(server, { name: 'Rex', categoryId: 1 }, 'retry-1');
    expect([first.status, retry.status]).toEqual([201, 201]);
    expect(await retry.json()).toEqual(await first.json());
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await petsCount(server)).toBe(before + 1);
  });

  it('treats bodies that validate to the same animal as the same request', async ({ server }) => {
    const first = await create(server, { name: 'Tom', categoryId: 2 }, 'same-meaning');
    const retry = await create(server, { categoryId: 2, name: '  Tom ', status: 'available' }, 'same-meaning');
    expect(await retry.json()).toEqual(await first.json());
  });

  it('refuses the same key with another body with 400, and creates nothing', async ({ server }) => {
    await create(server, { name: 'Rex', categoryId: 1 }, 'reused');
    const before = await petsCount(server);
    const body = await expectError(await create(server, { name: 'Max', categoryId: 1 }, 'reused'), 400, 'BAD_REQUEST');
    expect(body.message).toMatch(/Idempotency-Key was already used with a different request body/);
    expect(await petsCount(server)).toBe(before);
  });

  it('keeps idempotency keys apart per API key', async ({ server }) => {
    const other = (await createApiKeys(server.db.apiKeys).create('second')).token;
    const mine = (await (await create(server, { name: 'Rex', categoryId: 1 }, 'per-key')).json()) as { id: number };
    const theirs = (await (await create(server, { name: 'Rex', categoryId: 1 }, 'per-key', other)).json()) as { id: number };
    expect(theirs.id).not.toBe(mine.id);
  });

  it('creates exactly one animal from many concurrent requests with the same key', async ({ server }) => {
    const before = await petsCount(server);
    const responses = await Promise.all(Array.from({ length: 20 }, () => create(server, { name: 'Burst', categoryId: 3 }, 'burst')));
    const ids = new Set(await Promise.all(responses.map(async (response) => ((await response.json()) as { id: number }).id)));
    expect(responses.every((response) => response.status === 201)).toBe(true);
    expect(ids.size).toBe(1);
    expect(responses.filter((response) => response.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(await petsCount(server)).toBe(before + 1);
  });

  it.for<[string, string]>([
    ['too long', 'k'.repeat(256)],
    ['with a space', 'two words'],
  ])('refuses a key %s with 400', async ([, key], { server }) => {
    const before = await petsCount(server);
    const body = await expectError(await create(server, { name: 'Rex', categoryId: 1 }, key), 400, 'BAD_REQUEST');
    expect(body.message).toMatch(/Idempotency-Key must be/);
    expect(await petsCount(server)).toBe(before);
  });

  it('still validates the body first', async ({ server }) => {
    await expectError(await create(server, { name: '', categoryId: 1 }, 'invalid-body'), 400, 'BAD_REQUEST');
    expect((await create(server, { name: 'Valid', categoryId: 1 }, 'invalid-body')).status).toBe(201);
  });
});
