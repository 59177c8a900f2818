import type { Pet } from '@petstore/core';
import { describe, expect } from 'vitest';
import { type TestServer, it, nextPageLink } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';

const STATUSES = ['available', 'pending', 'sold'] as const;

const create = async (server: TestServer, count: number, status?: (index: number) => Pet['status']) => {
  const created: Pet[] = [];
  for (let index = 0; index < count; index++) {
    const response = await call(server, '/v1/pets', {
      method: 'POST',
      json: { name: `pet ${index}`, categoryId: 1 + (index % 3), ...(status && { status: status(index) }) },
    });
    created.push((await response.json()) as Pet);
  }
  return created;
};

/** Follows `rel="next"` links from `path` to the end; returns every page. */
const walk = async (server: TestServer, path: string, between?: () => Promise<unknown>) => {
  const pages: Pet[][] = [];
  let next: string | undefined = path;
  while (next) {
    const response = await call(server, next);
    expect(response.status).toBe(200);
    pages.push((await response.json()) as Pet[]);
    next = nextPageLink(response);
    if (next) await between?.();
  }
  return pages;
};

describe('listPets', () => {
  // Fresh server per group would be slower; these tests only ever add animals and read them by id.
  let all: Pet[];
  it.beforeAll(async ({ server }) => {
    all = await create(server, 45, (index) => STATUSES[index % 3] ?? 'available');
  });

  it('returns a plain array of Pet, 20 by default, by ascending id', async ({ server }) => {
    const response = await call(server, '/v1/pets');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const pets = (await response.json()) as Pet[];
    expect(pets).toEqual(all.slice(0, 20));
    for (const pet of pets) expect(Object.keys(pet).sort()).toEqual(['categoryId', 'id', 'name', 'status']);
  });

  it.for([1, 7, 100])('honours limit=%i', async (limit, { server }) => {
    const pets = (await (await call(server, `/v1/pets?limit=${limit}`)).json()) as Pet[];
    expect(pets).toEqual(all.slice(0, limit));
  });

  it.for(STATUSES)('filters by status=%s', async (status, { server }) => {
    const pets = (await (await call(server, `/v1/pets?status=${status}&limit=100`)).json()) as Pet[];
    expect(pets).toEqual(all.filter((pet) => pet.status === status));
  });

  it.for<[string, string]>([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=', 'limit'],
    ['limit=1e1', 'limit'],
    ['limit=%2010', 'limit'],
    ['limit=1&limit=2', 'limit'],
    ['status=lost', 'status'],
    ['status=', 'status'],
    ['status=Available', 'status'],
    ['cursor=', 'cursor'],
    ['cursor=not-a-cursor', 'cursor'],
    ['cursor=YWZ0ZXI6MA', 'cursor'],
    ['stauts=sold', 'stauts'],
  ])('refuses %s with 400 naming the parameter, in the message and in the list of issues', async ([query, parameter], { server }) => {
    const body = await expectError(await call(server, `/v1/pets?${query}`), 400, 'BAD_REQUEST');
    expect(body.message).toContain(parameter);
    // An unknown parameter is named in the message of an issue at the query itself.
    const known = ['limit', 'status', 'cursor'].includes(parameter);
    expect(body.issues).toContainEqual(known ? { path: [parameter], message: expect.any(String) } : { path: [], message: expect.stringContaining(parameter) });
  });
});

describe('pagination', () => {
  it('walks every animal once, in order, each page but the last full', async ({ server }) => {
    const pages = await walk(server, '/v1/pets?limit=7');
    const ids = pages.flat().map((pet) => pet.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages.slice(0, -1).every((page) => page.length === 7)).toBe(true);
    expect(pages.at(-1)?.length).toBeGreaterThan(0);
    const everything = (await (await call(server, '/v1/pets?limit=100')).json()) as Pet[];
    expect(ids).toEqual(everything.map((pet) => pet.id));
  });

  it('keeps limit and status in the next link and adds an opaque cursor', async ({ server }) => {
    const response = await call(server, '/v1/pets?status=sold&limit=2');
    const next = new URL(nextPageLink(response) ?? '', server.url);
    expect(next.pathname).toBe('/v1/pets');
    expect(Object.fromEntries(next.searchParams)).toEqual({ limit: '2', status: 'sold', cursor: expect.any(String) });
    const filtered = await walk(server, '/v1/pets?status=sold&limit=2');
    expect(filtered.flat().every((pet) => pet.status === 'sold')).toBe(true);
  });

  it('sends no next link on the last page, even when it is exactly full', async ({ server }) => {
    const total = ((await (await call(server, '/v1/pets?limit=100')).json()) as Pet[]).length;
    const exact = await call(server, `/v1/pets?limit=${total}`);
    expect(((await exact.json()) as Pet[]).length).toBe(total);
    expect(exact.headers.get('link')).toBeNull();
    const pages = await walk(server, `/v1/pets?limit=${Math.ceil(total / 3)}`);
    expect(pages.every((page) => page.length > 0)).toBe(true);
  });

  it('neither skips nor repeats an animal while others are added during the walk', async ({ server }) => {
    const before = ((await (await call(server, '/v1/pets?limit=100')).json()) as Pet[]).map((pet) => pet.id);
    const added: number[] = [];
    const pages = await walk(server, '/v1/pets?limit=5', async () => {
      const [pet] = await create(server, 2);
      if (pet) added.push(pet.id);
    });
    const seen = pages.flat().map((pet) => pet.id);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of [...before, ...added]) expect(seen).toContain(id);
  });

  it('answers an empty store with an empty array and no link', async ({ startServer }) => {
    const empty = await startServer();
    const response = await call(empty, '/v1/pets');
    expect(await response.json()).toEqual([]);
    expect(response.headers.get('link')).toBeNull();
  });
});
