import { describe, expect } from 'vitest';
import { type TestServer, it } from '../src/testing/index.js';
import { MAX_BATCH_SIZE } from '@petstore/core';
import { petsCount } from './support/http.js';

/** A call in tRPC's wire format, as `httpLink` and `httpBatchLink` send it. */
const trpc = (running: TestServer, path: string, init: RequestInit = {}) =>
  fetch(`${running.url}/trpc/${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${running.apiKey}`, ...(init.body && { 'Content-Type': 'application/json' }), ...(init.headers as Record<string, string> | undefined) },
  });

const batchOf = (procedure: string, count: number, input: unknown) =>
  `${Array.from({ length: count }, () => procedure).join(',')}?batch=1&input=${encodeURIComponent(
    JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, index) => [index, input]))),
  )}`;

interface Envelope {
  result?: { data: unknown };
  error?: { message: string; code: number; data: { code: string; httpStatus: number } };
}

describe('/trpc batches', () => {
  it(`answers a batch of ${MAX_BATCH_SIZE} calls, one envelope each`, async ({ startServer }) => {
    const running = await startServer();
    const response = await trpc(running, batchOf('listPets', MAX_BATCH_SIZE, { limit: 1 }));
    expect(response.status).toBe(200);
    const items = (await response.json()) as Envelope[];
    expect(items).toHaveLength(MAX_BATCH_SIZE);
    expect(items.every((item) => item.result !== undefined)).toBe(true);
  });

  it(`refuses a batch of ${MAX_BATCH_SIZE + 1} calls with a 400 and runs none of them`, async ({ startServer }) => {
    const running = await startServer();
    const response = await trpc(running, `${Array.from({ length: MAX_BATCH_SIZE + 1 }, () => 'createPet').join(',')}?batch=1`, {
      method: 'POST',
      body: JSON.stringify(Object.fromEntries(Array.from({ length: MAX_BATCH_SIZE + 1 }, (_, index) => [index, { name: 'Rex', categoryId: 1 }]))),
    });
    expect(response.status).toBe(400);
    // tRPC's own refusal (its maxBatchSize option), of the whole request.
    expect(await response.json()).toMatchObject({ error: { data: { code: 'BAD_REQUEST', httpStatus: 400 }, message: 'Batch call exceeds maximum size' } });
    expect(await petsCount(running)).toBe(0);
  });

  it('spends one request of the quota per call of a batch', async ({ startServer }) => {
    const running = await startServer({ RATE_LIMIT_PER_MINUTE: '25' });
    const first = await trpc(running, batchOf('listPets', 10, {}));
    expect(first.headers.get('ratelimit')).toMatch(/^"per-key";r=15;t=\d+$/);
    const second = await trpc(running, batchOf('listPets', 10, {}));
    expect(second.headers.get('ratelimit')).toMatch(/^"per-key";r=5;t=\d+$/);
    // Six calls do not fit in the five left: the whole batch is refused, each call with a 429.
    const refused = await trpc(running, batchOf('listPets', 6, {}));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    const items = (await refused.json()) as Envelope[];
    expect(items.map((item) => item.error?.data.code)).toEqual(Array.from({ length: 6 }, () => 'TOO_MANY_REQUESTS'));
  });

  it('answers a batch whose calls end differently with 207 and each call its own envelope', async ({ startServer }) => {
    const running = await startServer();
    const response = await trpc(running, `listPets,getPet?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: {}, 1: { petId: 404 } }))}`);
    expect(response.status).toBe(207);
    const [list, missing] = (await response.json()) as Envelope[];
    expect(list?.result?.data).toEqual({ items: [], nextCursor: null });
    expect(missing?.error?.data).toEqual({ code: 'NOT_FOUND', httpStatus: 404 });
  });
});

describe('/trpc calls', () => {
  it('makes a create idempotent with an Idempotency-Key, as REST does', async ({ startServer }) => {
    const running = await startServer();
    const create = () =>
      trpc(running, 'createPet', { method: 'POST', body: JSON.stringify({ name: 'Rex', categoryId: 1 }), headers: { 'Idempotency-Key': 'trpc-once' } });
    const first = (await (await create()).json()) as Envelope;
    const retry = (await (await create()).json()) as Envelope;
    expect(retry.result?.data).toEqual(first.result?.data);
    expect(await petsCount(running)).toBe(1);
  });

  it.for<[string, string, RequestInit, string]>([
    ['a query sent as POST', 'listPets', { method: 'POST', body: '{}' }, 'GET'],
    ['a mutation sent as GET', 'createPet', {}, 'POST'],
  ])('refuses %s with 405 and the method it takes', async ([, path, init, allow], { startServer }) => {
    const running = await startServer();
    const response = await trpc(running, path, init);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    expect(await response.json()).toMatchObject({ error: { data: { code: 'METHOD_NOT_SUPPORTED', httpStatus: 405 } } });
  });

  it.for<[string, string, RequestInit, number, string]>([
    ['an unknown procedure', 'nope', {}, 404, 'NOT_FOUND'],
    ['input that is not JSON', 'listPets?input=%7B', {}, 400, 'BAD_REQUEST'],
    ['a body that is not JSON', 'createPet', { method: 'POST', body: '{' }, 400, 'BAD_REQUEST'],
    ['a body as text/plain', 'createPet', { method: 'POST', body: '{}', headers: { 'Content-Type': 'text/plain' } }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a body over the limit', 'createPet', { method: 'POST', body: JSON.stringify({ name: 'x'.repeat(70_000), categoryId: 1 }) }, 413, 'PAYLOAD_TOO_LARGE'],
    ['a name with a right-to-left override', 'createPet', { method: 'POST', body: JSON.stringify({ name: 'Rex\u202egpj.exe', categoryId: 1 }) }, 400, 'BAD_REQUEST'],
    ['a name of a Hangul filler', 'createPet', { method: 'POST', body: JSON.stringify({ name: '\u3164', categoryId: 1 }) }, 400, 'BAD_REQUEST'],
  ])('answers %s in the tRPC envelope with its status', async ([, path, init, status, code], { startServer }) => {
    const running = await startServer();
    const response = await trpc(running, path, init);
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ error: { data: { code, httpStatus: status } } });
  });
});
