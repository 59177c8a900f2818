import { createApiKeys } from '@petstore/core';
import { describe, expect } from 'vitest';
import { type TestServer, it } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';

/** The live key with its secret changed: the public id finds a row, the secret does not match. */
const wrongSecret = (key: string) => `${key.slice(0, -4)}${key.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;

const guess = (running: TestServer, headers: Record<string, string> = {}, path = '/v1/pets') =>
  call(running, path, { key: wrongSecret(running.apiKey), headers });

describe('failed authentication, throttled per client address', () => {
  it('answers 401 with the address quota, then 429 with Retry-After once it is spent', async ({ startServer }) => {
    const running = await startServer({ AUTH_FAILURES_PER_MINUTE: '5' });
    // Used once before: this instance knows the key good.
    expect((await call(running, '/v1/pets')).status).toBe(200);
    const { token: unseen } = await createApiKeys(running.db.apiKeys).create('unseen');
    for (let attempt = 0; attempt < 5; attempt++) {
      const refused = await guess(running);
      await expectError(refused, 401, 'UNAUTHORIZED');
      expect(refused.headers.get('ratelimit-policy')).toBe('"per-address";q=5;w=60');
      expect(refused.headers.get('ratelimit')).toMatch(new RegExp(`^"per-address";r=${4 - attempt};t=\\d+$`));
    }
    const throttled = await guess(running);
    const body = await expectError(throttled, 429, 'TOO_MANY_REQUESTS');
    expect(body.message).toMatch(/failed authentications/);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // tRPC shares the count, and so does a request with no key at all.
    expect((await guess(running, {}, '/trpc/listPets')).status).toBe(429);
    await expectError(await call(running, '/v1/pets', { key: null }), 429, 'TOO_MANY_REQUESTS');
    // A key the instance knows good is not refused for what others sent from the same address;
    // any other is refused before it is looked up, valid or not: a lookup would have let it in.
    expect((await call(running, '/v1/pets')).status).toBe(200);
    await expectError(await call(running, '/v1/pets', { key: unseen }), 429, 'TOO_MANY_REQUESTS');
  });

  it('does not believe X-Forwarded-For unless TRUST_PROXY names the proxy', async ({ startServer }) => {
    const running = await startServer({ AUTH_FAILURES_PER_MINUTE: '2' });
    for (const client of ['203.0.113.1', '203.0.113.2']) await expectError(await guess(running, { 'X-Forwarded-For': client }), 401, 'UNAUTHORIZED');
    await expectError(await guess(running, { 'X-Forwarded-For': '203.0.113.3' }), 429, 'TOO_MANY_REQUESTS');
  });

  it('counts each client behind a trusted proxy on its own', async ({ startServer }) => {
    const running = await startServer({ AUTH_FAILURES_PER_MINUTE: '2', TRUST_PROXY: 'loopback' });
    for (const client of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      await expectError(await guess(running, { 'X-Forwarded-For': client }), 401, 'UNAUTHORIZED');
    }
    await expectError(await guess(running, { 'X-Forwarded-For': '203.0.113.1' }), 401, 'UNAUTHORIZED');
    await expectError(await guess(running, { 'X-Forwarded-For': '203.0.113.1' }), 429, 'TOO_MANY_REQUESTS');
  });

  it('defaults to 60 failures a minute', async ({ startServer }) => {
    const running = await startServer({ AUTH_FAILURES_PER_MINUTE: '' });
    expect((await guess(running)).headers.get('ratelimit-policy')).toBe('"per-address";q=60;w=60');
  });
});
