import type { AppRouter, Pet } from '@petstore/core';
import { type TRPCLink, TRPCClientError, createTRPCClient, httpBatchLink, httpBatchStreamLink, httpLink } from '@trpc/client';
import { expect } from 'vitest';
import { it } from '../src/testing/index.js';

/**
 * `/trpc` as apps reach it: through @trpc/client's links, typed by the router, with the key in the
 * `Authorization` header. Every link an app may pick must work: batched, streamed, and with
 * queries sent as POST (`methodOverride`), which the service takes when TRPC_ALLOW_METHOD_OVERRIDE
 * is on.
 */

interface LinkSetup {
  name: string;
  link: (options: { url: string; headers: Record<string, string> }) => TRPCLink<AppRouter>;
  env: NodeJS.ProcessEnv;
}

const OVERRIDE_ON = { TRPC_ALLOW_METHOD_OVERRIDE: 'true' };

const LINKS: LinkSetup[] = [
  { name: 'httpLink', link: (options) => httpLink(options), env: {} },
  { name: 'httpBatchLink', link: (options) => httpBatchLink(options), env: {} },
  { name: 'httpBatchStreamLink', link: (options) => httpBatchStreamLink(options), env: {} },
  { name: "httpLink with methodOverride: 'POST'", link: (options) => httpLink({ ...options, methodOverride: 'POST' }), env: OVERRIDE_ON },
  { name: "httpBatchLink with methodOverride: 'POST'", link: (options) => httpBatchLink({ ...options, methodOverride: 'POST' }), env: OVERRIDE_ON },
  { name: "httpBatchStreamLink with methodOverride: 'POST'", link: (options) => httpBatchStreamLink({ ...options, methodOverride: 'POST' }), env: OVERRIDE_ON },
];

/** A client as an app sets one up; without a key, no Authorization header at all. */
const clientOf = ({ link }: LinkSetup, server: { url: string }, key?: string) =>
  createTRPCClient<AppRouter>({
    links: [link({ url: `${server.url}/trpc`, headers: key === undefined ? {} : { Authorization: `Bearer ${key}` } })],
  });

/** The `data` of the TRPCClientError a call was rejected with: `{ code, httpStatus }`. */
const errorData = (reason: unknown) => {
  expect(reason).toBeInstanceOf(TRPCClientError);
  return (reason as TRPCClientError<AppRouter>).data;
};

const rejection = async (call: Promise<unknown>) =>
  errorData(
    await call.then(
      (value) => expect.fail(`expected a rejection, got ${JSON.stringify(value)}`),
      (reason: unknown) => reason,
    ),
  );

it.for(LINKS)('$name: creates an animal, gets it and walks the listing by nextCursor', async (setup, { startServer }) => {
  const running = await startServer(setup.env);
  const client = clientOf(setup, running, running.apiKey);
  // Typed by the router: a Pet comes back, not `unknown`.
  const rex: Pet = await client.createPet.mutate({ name: 'Rex', categoryId: 1 });
  expect(rex).toEqual({ id: expect.any(Number), name: 'Rex', categoryId: 1, status: 'available' });
  expect(await client.getPet.query({ petId: rex.id })).toEqual(rex);

  const created = [rex.id];
  for (const name of ['Tom', 'Ada', 'Bo', 'Cy']) created.push((await client.createPet.mutate({ name, categoryId: 2 })).id);
  const pages: number[][] = [];
  let cursor: string | null = null;
  // Bounded: a cursor that never ends must fail here, not hang.
  do {
    const page = await client.listPets.query({ limit: 2, ...(cursor !== null && { cursor }) });
    pages.push(page.items.map((pet) => pet.id));
    cursor = page.nextCursor;
  } while (cursor !== null && pages.length < 5);
  expect(pages.map((ids) => ids.length)).toEqual([2, 2, 1]);
  expect(cursor).toBeNull();
  // Every animal once, by ascending id.
  expect(pages.flat()).toEqual(created);
  expect(created).toEqual([...created].sort((a, b) => a - b));
});

it.for(LINKS)('$name: a missing animal is NOT_FOUND (404), an invalid create BAD_REQUEST (400)', async (setup, { startServer }) => {
  const running = await startServer(setup.env);
  const client = clientOf(setup, running, running.apiKey);
  expect(await rejection(client.getPet.query({ petId: 999_999 }))).toEqual({ code: 'NOT_FOUND', httpStatus: 404 });
  expect(await rejection(client.createPet.mutate({ name: '', categoryId: 1 }))).toEqual({ code: 'BAD_REQUEST', httpStatus: 400 });
});

it.for(LINKS)('$name: calls of one tick that end differently each settle on their own', async (setup, { startServer }) => {
  const running = await startServer(setup.env);
  const client = clientOf(setup, running, running.apiKey);
  // Made in the same tick, so the batching links send them in one request.
  const [listed, missing] = await Promise.allSettled([client.listPets.query({ limit: 1 }), client.getPet.query({ petId: 999_999 })]);
  expect(listed).toEqual({ status: 'fulfilled', value: { items: [], nextCursor: null } });
  expect(missing.status).toBe('rejected');
  expect(errorData(missing.status === 'rejected' ? missing.reason : undefined)).toEqual({ code: 'NOT_FOUND', httpStatus: 404 });
});

it.for(LINKS)('$name: without a key every call is UNAUTHORIZED (401)', async (setup, { startServer }) => {
  const running = await startServer(setup.env);
  const client = clientOf(setup, running);
  // For httpBatchStreamLink this reads the service's refusal in tRPC's JSON-lines format.
  const settled = await Promise.allSettled([client.listPets.query({ limit: 1 }), client.getPet.query({ petId: 1 }), client.createPet.mutate({ name: 'Rex', categoryId: 1 })]);
  for (const outcome of settled) {
    expect(outcome.status).toBe('rejected');
    expect(errorData(outcome.status === 'rejected' ? outcome.reason : undefined)).toEqual({ code: 'UNAUTHORIZED', httpStatus: 401 });
  }
});

// tRPC's own default: a server that has not turned method override on refuses a query sent as POST.
it.for(LINKS.filter((setup) => setup.env === OVERRIDE_ON))(
  '$name against a server without TRPC_ALLOW_METHOD_OVERRIDE: a query is METHOD_NOT_SUPPORTED (405)',
  async (setup, { server }) => {
    const client = clientOf(setup, server, server.apiKey);
    expect(await rejection(client.listPets.query({ limit: 1 }))).toEqual({ code: 'METHOD_NOT_SUPPORTED', httpStatus: 405 });
  },
);
