import { createApiKeys } from '@petstore/core';
import { describe, expect } from 'vitest';
import { it } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';

const remaining = (response: Response) => /;r=(\d+);t=(\d+)$/.exec(response.headers.get('ratelimit') ?? '')?.slice(1).map(Number);

describe('rate limiting per API key', () => {
  it('allows RATE_LIMIT_PER_MINUTE requests, then answers 429 with Retry-After', async ({ startServer }) => {
    const server = await startServer({ RATE_LIMIT_PER_MINUTE: '3' });
    const seen = [];
    for (let request = 0; request < 3; request++) {
      const response = await call(server, '/v1/pets');
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe('"per-key";q=3;w=60');
      seen.push(remaining(response)?.[0]);
    }
    expect(seen).toEqual([2, 1, 0]);

    const refused = await call(server, '/v1/pets');
    const body = await expectError(refused, 429, 'TOO_MANY_REQUESTS');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(body.message).toContain(String(retryAfter));
    // The quota counts requests, whatever they ask: a refused create adds nothing.
    await expectError(await call(server, '/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 1 } }), 429, 'TOO_MANY_REQUESTS');
  });

  it('counts each key on its own, and tRPC calls against the same quota', async ({ startServer }) => {
    const server = await startServer({ RATE_LIMIT_PER_MINUTE: '2' });
    const other = (await createApiKeys(server.db.apiKeys).create('other')).token;
    await call(server, '/v1/pets');
    await call(server, '/v1/pets');
    await expectError(await call(server, '/v1/pets'), 429, 'TOO_MANY_REQUESTS');

    const viaTrpc = await call(server, '/trpc/listPets');
    expect(viaTrpc.status).toBe(429);
    expect(await viaTrpc.json()).toMatchObject({ error: { data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429 } } });
    expect(viaTrpc.headers.get('retry-after')).not.toBeNull();

    expect((await call(server, '/v1/pets', { key: other })).status).toBe(200);
  });

  it('checks the key before the quota: a request without a valid key is never counted', async ({ startServer }) => {
    const server = await startServer({ RATE_LIMIT_PER_MINUTE: '1' });
    for (let request = 0; request < 3; request++) await expectError(await call(server, '/v1/pets', { key: 'nope' }), 401, 'UNAUTHORIZED');
    expect((await call(server, '/v1/pets')).status).toBe(200);
  });

  it('defaults to 600 a minute', async ({ startServer }) => {
    const server = await startServer({ RATE_LIMIT_PER_MINUTE: '' });
    const response = await call(server, '/v1/pets');
    expect(response.headers.get('ratelimit-policy')).toBe('"per-key";q=600;w=60');
    expect(remaining(response)?.[0]).toBe(599);
  });

  it('is off at 0: no quota headers, no refusals', async ({ startServer }) => {
    const server = await startServer({ RATE_LIMIT_PER_MINUTE: '0' });
    for (let request = 0; request < 20; request++) {
      const response = await call(server, '/v1/pets');
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit')).toBeNull();
    }
  });
});
