import { type TestServer, contractFetch, startTestServer } from '@petstore/api/testing';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { type RestSchemas, createPetstoreRestClient } from '../index.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.dispose());

// contractFetch checks every response against the document the server serves.
const client = () => createPetstoreRestClient({ url: server.url, apiKey: server.apiKey, fetch: contractFetch });

type Pet = RestSchemas['schemas']['Pet'];

describe('the REST client', () => {
  it('adds, lists and fetches animals with types generated from openapi.json', async () => {
    const petstore = client();
    const created = await petstore.POST('/pets', { body: { name: 'Rex', categoryId: 1 } });
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('location')).toBe(`/v1/pets/${String(created.data?.id)}`);
    expectTypeOf(created.data).toEqualTypeOf<Pet | undefined>();
    const rex = created.data;
    expect(rex).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 1, status: 'available' });

    const listed = await petstore.GET('/pets', { params: { query: { status: 'available', limit: 10 } } });
    expect(listed.data).toContainEqual(rex);

    const fetched = await petstore.GET('/pets/{petId}', { params: { path: { petId: rex?.id ?? 0 } } });
    expect(fetched.data).toEqual(rex);
    expect(fetched.response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  });

  it('returns the Error body, typed, for a failed call', async () => {
    const missing = await client().GET('/pets/{petId}', { params: { path: { petId: 999_999 } } });
    expectTypeOf(missing.error).toEqualTypeOf<RestSchemas['schemas']['Error'] | undefined>();
    expect(missing.error).toEqual({ code: 'NOT_FOUND', message: expect.any(String), status: 404 });

    const invalid = await client().POST('/pets', { body: { name: '', categoryId: 0 } });
    expect(invalid.error).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    // Each field that failed, typed as the document's ValidationIssue.
    expectTypeOf(invalid.error?.issues).toEqualTypeOf<RestSchemas['schemas']['ValidationIssue'][] | undefined>();
    expect(invalid.error?.issues).toEqual([
      { path: ['name'], message: expect.any(String) },
      { path: ['categoryId'], message: expect.any(String) },
    ]);

    const unauthorised = await createPetstoreRestClient({ url: server.url, apiKey: 'nope', fetch: contractFetch }).GET('/pets');
    expect(unauthorised.error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });
});
