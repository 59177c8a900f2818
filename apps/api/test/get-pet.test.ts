import type { Pet } from '@petstore/core';
import { describe, expect } from 'vitest';
import { it } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';

let rex: Pet;
it.beforeAll(async ({ server }) => {
  rex = (await (await call(server, '/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 2 } })).json()) as Pet;
});

describe('getPet (deprecated)', () => {
  it('returns the animal', async ({ server }) => {
    const response = await call(server, `/v1/pets/${rex.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(rex);
  });

  it('announces its deprecation, its sunset and its successor', async ({ server }) => {
    const response = await call(server, `/v1/pets/${rex.id}`);
    // RFC 9745: the day 1.0.0 deprecated it, 2026-11-22T00:00:00Z, in epoch seconds.
    expect(response.headers.get('deprecation')).toBe('@1795305600');
    expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
    expect(response.headers.get('link')).toBe('</v1/pets>; rel="successor-version"');
  });

  it('answers 404 with the Error body for a well-formed id with no animal', async ({ server }) => {
    const body = await expectError(await call(server, '/v1/pets/987654'), 404, 'NOT_FOUND');
    expect(body.message).toContain('987654');
  });

  it.for(['abc', '0', '-1', '1.5', '1e3', '0x1', '9007199254740992', '%20'])(
    'refuses petId %s with 400, naming it in the message and in the list of issues',
    async (petId, { server }) => {
      const body = await expectError(await call(server, `/v1/pets/${petId}`), 400, 'BAD_REQUEST');
      expect(body.message).toContain('petId');
      expect(body.issues).toEqual([{ path: ['petId'], message: expect.any(String) }]);
    },
  );
});
