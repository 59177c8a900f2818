import { type TestServer, contractFetch, startTestServer } from '@petstore/api/testing';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { type Pet, PetstoreRestError, createPetstoreClient, createPetstoreRestClient, isPetstoreError, pagesOfPets, restPagesOfPets } from './index.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.dispose());

const client = () => createPetstoreClient({ url: server.url, apiKey: server.apiKey });

/** The error a call fails with; fails the test when the call succeeds. */
const failure = async (call: Promise<unknown>) => {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isPetstoreError(error)) throw new Error(`expected a failed call, got ${String(error)}`);
  return error;
};

describe('the typed client', () => {
  it('creates, lists and fetches animals with types inferred from the router', async () => {
    const petstore = client();
    const rex = await petstore.createPet.mutate({ name: 'Rex', categoryId: 1 });
    expectTypeOf(rex).toEqualTypeOf<Pet>();
    expect(rex).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 1, status: 'available' });

    const listed = await petstore.listPets.query({ status: 'available' });
    expectTypeOf(listed.items).toEqualTypeOf<Pet[]>();
    expectTypeOf(listed.nextCursor).toEqualTypeOf<string | null>();
    expect(listed.items).toContainEqual(rex);
    expect((await petstore.listPets.query()).items).toContainEqual(rex);

    expect(await petstore.getPet.query({ petId: rex.id })).toEqual(rex);
  });

  it('sees what REST sees', async () => {
    const rex = await client().createPet.mutate({ name: 'Shared', categoryId: 2, status: 'sold' });
    const rest = await contractFetch(`${server.url}/v1/pets/${rex.id}`, { headers: { Authorization: `Bearer ${server.apiKey}` } });
    expect(await rest.json()).toEqual(rex);
  });

  it.each([
    ['NOT_FOUND', 404, () => client().getPet.query({ petId: 999_999 })],
    ['BAD_REQUEST', 400, () => client().listPets.query({ limit: 101 })],
    ['BAD_REQUEST', 400, () => client().createPet.mutate({ name: ' ', categoryId: 1 })],
    ['UNAUTHORIZED', 401, () => createPetstoreClient({ url: server.url, apiKey: 'pst_bad' }).listPets.query()],
  ])('surfaces %s (HTTP %i) with the same code as REST', async (code, status, call) => {
    const error = await failure(call());
    expect(error.data).toEqual({ code, httpStatus: status });
    expect(error.message).not.toBe('');
  });

  it('refuses a string where the schema wants a number, as REST does', async () => {
    const error = await failure(client().createPet.mutate({ name: 'Rex', categoryId: '5' as unknown as number }));
    expect(error.data?.code).toBe('BAD_REQUEST');
  });

  it('walks every page of a filtered list', async () => {
    const petstore = client();
    for (let index = 0; index < 7; index++) await petstore.createPet.mutate({ name: `p${index}`, categoryId: 3, status: 'pending' });
    const pages: Pet[][] = [];
    for await (const page of pagesOfPets(petstore, { status: 'pending', limit: 3 })) pages.push(page);
    expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
    const ids = pages.flat().map((pet) => pet.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(pages.flat().every((pet) => pet.status === 'pending')).toBe(true);
  });

  it("reads a page as tRPC's infinite queries ask for it, with direction: 'forward'", async () => {
    const petstore = client();
    const first = await petstore.listPets.query({ limit: 2 });
    const asked = { limit: 2, cursor: first.nextCursor ?? undefined, direction: 'forward' } as { limit: number; cursor?: string };
    const second = await petstore.listPets.query(asked);
    expect(second.items.map((pet) => pet.id)).toEqual((await petstore.listPets.query({ limit: 2, cursor: asked.cursor })).items.map((pet) => pet.id));
    expect(second.items[0]?.id).toBeGreaterThan(first.items[1]?.id ?? Infinity);
    const backward = await failure(petstore.listPets.query({ limit: 2, direction: 'backward' } as { limit: number }));
    expect(backward.data?.code).toBe('BAD_REQUEST');
  });

  it('batches the calls made together into one HTTP request', async () => {
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests += 1;
      return fetch(input, init);
    };
    const petstore = createPetstoreClient({ url: server.url, apiKey: server.apiKey, fetch: counting });
    const [first, second, third] = await Promise.all([
      petstore.listPets.query({ limit: 1 }),
      petstore.listPets.query({ status: 'sold' }),
      petstore.getPet.query({ petId: 999_999 }).catch((error: unknown) => error),
    ]);
    expect(requests).toBe(1);
    expect(first.items.length).toBeLessThanOrEqual(1);
    expect(second.items.every((pet) => pet.status === 'sold')).toBe(true);
    expect(isPetstoreError(third) && third.data?.code).toBe('NOT_FOUND');
  });

  it('walks the pages by nextCursor with no gap or repeat while animals are added', async () => {
    const petstore = client();
    const status = 'available';
    const before: number[] = [];
    for await (const page of pagesOfPets(petstore, { status, limit: 50 })) before.push(...page.map((pet) => pet.id));
    for (let index = 0; index < 9; index++) await petstore.createPet.mutate({ name: `walk${index}`, categoryId: 4 });

    const seen: number[] = [];
    const added: number[] = [];
    for await (const page of pagesOfPets(petstore, { status, limit: 4 })) {
      seen.push(...page.map((pet) => pet.id));
      // Added behind the cursor while the walk goes on: each must turn up once, at the end.
      added.push((await petstore.createPet.mutate({ name: 'during', categoryId: 4 })).id);
      if (added.length > 40) throw new Error('the walk does not end');
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.slice(0, before.length)).toEqual(before);
    // Every animal added before the last page was read is in the walk.
    expect(seen).toEqual(expect.arrayContaining(added.slice(0, -1)));
  });

  it('walks the same pages over REST, by each page\'s Link', async () => {
    const petstore = client();
    for (let index = 0; index < 5; index++) await petstore.createPet.mutate({ name: `rest-walk${String(index)}`, categoryId: 6, status: 'pending' });
    const rest = createPetstoreRestClient({ url: server.url, apiKey: server.apiKey });
    const overTrpc: Pet[][] = [];
    for await (const page of pagesOfPets(petstore, { status: 'pending', limit: 2 })) overTrpc.push(page);
    const overRest: Pet[][] = [];
    for await (const page of restPagesOfPets(rest, { status: 'pending', limit: 2 })) overRest.push(page);
    expect(overRest).toEqual(overTrpc);
    expect(overRest.length).toBeGreaterThan(2);
  });

  it('ends a REST walk that is refused with the Error body, as an error', async () => {
    const rest = createPetstoreRestClient({ url: server.url, apiKey: server.apiKey });
    const walk = restPagesOfPets(rest, { limit: 101 });
    const error = await walk.next().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PetstoreRestError);
    expect(error).toMatchObject({ code: 'BAD_REQUEST', status: 400, issues: [{ path: ['limit'] }] });
  });
});
