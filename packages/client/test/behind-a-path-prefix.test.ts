import { type TestServer, startTestServer } from '@petstore/api/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pet, type QueryLink, createPetstoreClient, createPetstoreRestClient, pagesOfPets, restPagesOfPets } from '../src/index.js';
import { type NginxUnderPrefix, startNginxUnderPrefix } from './support/nginx-under-prefix.js';

/*
 * The service as an ingress path or an API gateway's stage serves it: under /petstore/ on nginx,
 * which takes the prefix off and answers 404 to anything outside it. Both clients are given the
 * prefixed address, with and without its trailing slash, and must reach the service through it.
 */
let server: TestServer;
let nginx: NginxUnderPrefix;
beforeAll(async () => {
  server = await startTestServer();
  nginx = await startNginxUnderPrefix(new URL(server.url).host, '/petstore/');
});
afterAll(async () => {
  await nginx.dispose();
  await server.dispose();
});

const bases = () => [nginx.url, `${nginx.url}/`];
const LINKS: QueryLink[] = ['httpBatchStreamLink', 'httpBatchLink', 'httpLink'];

describe('a base URL with a path, behind nginx serving the service under /petstore/', () => {
  it.for([false, true])('tRPC, every link, trailing slash %s: creates, reads and walks the pages', async (slash) => {
    const url = bases()[Number(slash)] ?? '';
    for (const queryLink of LINKS) {
      const petstore = createPetstoreClient({ url, apiKey: server.apiKey, queryLink, maxRetries: 0 });
      const name = `Prefixed ${queryLink} ${String(slash)}`;
      const rex = await petstore.createPet.mutate({ name, categoryId: 5 });
      expect(await petstore.getPet.query({ petId: rex.id })).toEqual(rex);
      const found: Pet[] = [];
      for await (const page of pagesOfPets(petstore, { limit: 2 })) found.push(...page.filter((pet) => pet.name === name));
      expect(found).toEqual([rex]);
    }
    expect(nginx.paths().filter((path) => path.startsWith('/petstore/trpc/')).length).toBeGreaterThanOrEqual(LINKS.length * 3);
  });

  it.for([false, true])('REST, trailing slash %s: creates, reads and walks the pages by Link', async (slash) => {
    const url = bases()[Number(slash)] ?? '';
    const rest = createPetstoreRestClient({ url, apiKey: server.apiKey, maxRetries: 0 });
    const name = `Prefixed REST ${String(slash)}`;
    const { data: rex, response } = await rest.POST('/pets', { body: { name, categoryId: 5 } });
    expect(response.status).toBe(201);
    const { data: fetched } = await rest.GET('/pets/{petId}', { params: { path: { petId: rex?.id ?? 0 } } });
    expect(fetched).toEqual(rex);
    const found: Pet[] = [];
    let pages = 0;
    for await (const page of restPagesOfPets(rest, { limit: 2 })) {
      pages += 1;
      found.push(...page.filter((pet) => pet.name === name));
    }
    expect(found).toEqual([rex]);
    expect(pages).toBeGreaterThan(1);
    expect(nginx.paths()).toContain('/petstore/v1/pets');
  });

  it('answers nothing of the service at the root: a client that dropped the path would fail', async () => {
    const root = new URL(nginx.url).origin;
    const response = await fetch(`${root}/v1/pets`, { headers: { Authorization: `Bearer ${server.apiKey}` } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  });
});
