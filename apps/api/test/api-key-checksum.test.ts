import { describe, expect } from 'vitest';
import { it } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';

describe('a key whose checksum fails', () => {
  it('is refused 401 on both transports, with the challenge, while the real key works', async ({ server }) => {
    const real = server.apiKey;
    const mistyped = real.slice(0, 20) + (real[20] === 'x' ? 'y' : 'x') + real.slice(21);
    for (const key of [mistyped, `pst_0123456789ab_${'a'.repeat(49)}`]) {
      const refused = await expectError(await call(server, '/v1/pets', { key }), 401, 'UNAUTHORIZED');
      expect(refused.message).toBe('Invalid API key.');
      const viaTrpc = await fetch(`${server.url}/trpc/listPets`, { headers: { Authorization: `Bearer ${key}` } });
      expect([viaTrpc.status, viaTrpc.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="petstore"']);
    }
    expect((await call(server, '/v1/pets', { key: real })).status).toBe(200);
  });
});
