import { type TestServer, startTestServer } from '@petstore/api/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Pet, createPetstoreClient, createPetstoreRestClient, isPetstoreError, pagesOfPets, requestIdOf } from '../src/index.js';
import { collectGarbage } from './support/collect-garbage.js';
import { type FlakyProxy, startFlakyProxy } from './support/flaky-proxy.js';

let server: TestServer;
let proxy: FlakyProxy;
beforeAll(async () => {
  server = await startTestServer();
  proxy = await startFlakyProxy(server.url);
});
afterAll(async () => {
  await proxy.close();
  await server.dispose();
});

/** Every HTTP request the client sent, attempts included. */
let sent: { method: string; idempotencyKey: string | null }[] = [];
beforeEach(() => {
  sent = [];
});
/**
 * Records each attempt, and hands fetch what it was given as it was given: a Request made of them
 * would take a body that is fetch's, and hold the attempt's signal only as long as the garbage
 * collector lets it.
 */
const recordingFetch: typeof fetch = (input, init) => {
  const request = input instanceof Request ? input : undefined;
  const headers = new Headers(init?.headers ?? request?.headers);
  sent.push({ method: (init?.method ?? request?.method ?? 'GET').toUpperCase(), idempotencyKey: headers.get('idempotency-key') });
  return fetch(input, init);
};

// Long enough that no attempt is abandoned for being slow on a busy machine, which would add one to
// the attempts these tests count; short enough that a stall nobody armed fails the test in time.
const options = { url: '', apiKey: '', fetch: recordingFetch, timeoutMs: 10_000 };
const viaProxy = () => createPetstoreClient({ ...options, url: proxy.url, apiKey: server.apiKey });
const restViaProxy = () => createPetstoreRestClient({ ...options, url: proxy.url, apiKey: server.apiKey });

/** The animals of that name the service holds, asked directly. */
const named = async (name: string) => {
  const found: Pet[] = [];
  for await (const page of pagesOfPets(createPetstoreClient({ url: server.url, apiKey: server.apiKey }), { limit: 100 })) found.push(...page.filter((pet) => pet.name === name));
  return found;
};

const timed = async <T>(call: () => Promise<T>) => {
  const started = performance.now();
  const result = await call();
  return { result, ms: performance.now() - started };
};

describe('a create whose answer is lost after the service stored it', () => {
  it('over tRPC: is retried under the same Idempotency-Key and adds exactly one animal', async () => {
    proxy.next({ kind: 'cut-after-answer' });
    const { result: pet, ms } = await timed(() => viaProxy().createPet.mutate({ name: 'Cut-trpc', categoryId: 1 }));
    expect(sent).toHaveLength(2);
    expect(sent[0]?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1]?.idempotencyKey).toBe(sent[0]?.idempotencyKey);
    expect(await named('Cut-trpc')).toEqual([pet]);
    console.info(`retry figures: tRPC create, connection cut after the answer: ${String(sent.length)} requests, one animal, ${ms.toFixed(0)} ms`);
  });

  it('over REST: the same', async () => {
    proxy.next({ kind: 'cut-after-answer' });
    const { data, response } = await restViaProxy().POST('/pets', { body: { name: 'Cut-rest', categoryId: 1 } });
    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(sent.map(({ idempotencyKey }) => idempotencyKey)).toEqual([sent[0]?.idempotencyKey, sent[0]?.idempotencyKey]);
    expect(await named('Cut-rest')).toEqual([data]);
  });

  it('with retries off, fails: the proxy really cuts', async () => {
    proxy.next({ kind: 'cut-after-answer' });
    const error = await createPetstoreClient({ ...options, url: proxy.url, apiKey: server.apiKey, maxRetries: 0 })
      .createPet.mutate({ name: 'Cut-once', categoryId: 1 })
      .catch((caught: unknown) => caught);
    expect(isPetstoreError(error)).toBe(true);
    expect(sent).toHaveLength(1);
    expect(await named('Cut-once')).toHaveLength(1);
  });
});

describe('answers that say "later"', () => {
  it('waits out 429 with Retry-After, then succeeds', async () => {
    proxy.next({ kind: 'answer', status: 429, headers: { 'Retry-After': '1' } });
    const { result, ms } = await timed(() => viaProxy().listPets.query({ limit: 1 }));
    expect(result.items.length).toBeLessThanOrEqual(1);
    expect(sent).toHaveLength(2);
    expect(ms).toBeGreaterThanOrEqual(1_000);
    console.info(`retry figures: 429 with Retry-After: 1 waited out, answered after ${ms.toFixed(0)} ms in ${String(sent.length)} requests`);
  });

  it("waits what the service's own 429 asks, rather than backing off on its own clock", async () => {
    const limited = await startTestServer({ RATE_LIMIT_PER_MINUTE: '1' });
    try {
      const petstore = createPetstoreClient({ ...options, url: limited.url, apiKey: limited.apiKey });
      await petstore.listPets.query({ limit: 1 });
      const stop = new AbortController();
      const call = petstore.listPets.query({ limit: 1 }, { signal: stop.signal }).catch((caught: unknown) => caught);
      // The quota's window is a minute: Retry-After says tens of seconds, backoff alone would have retried by now.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      stop.abort();
      expect(isPetstoreError(await call)).toBe(true);
      expect(sent).toHaveLength(2);
    } finally {
      await limited.dispose();
    }
  });

  it('retries 503 with backoff, a create keeping its key', async () => {
    proxy.next({ kind: 'answer', status: 503, headers: {} });
    const { data } = await restViaProxy().POST('/pets', { body: { name: 'After-503', categoryId: 1 } });
    expect(sent).toHaveLength(2);
    expect(sent[1]?.idempotencyKey).toBe(sent[0]?.idempotencyKey);
    expect(await named('After-503')).toEqual([data]);
  });

  it('abandons an attempt after timeoutMs and tries again, whatever the garbage collector does meanwhile', async () => {
    proxy.next({ kind: 'stall' });
    // Only the first attempt stalls. 2 s is room for a create on a machine whose cores are busy (at
    // 300 ms, beside two spinning processes, every later attempt was abandoned too); one that still
    // takes longer is abandoned and tried again under the same key like the first. What is held:
    // the stalled attempt ends no sooner than timeoutMs, another follows, and one animal results.
    const timeoutMs = 2_000;
    // The client as an app makes it, on the global fetch; its attempts are counted as they arrive.
    const petstore = createPetstoreClient({ url: proxy.url, apiKey: server.apiKey, timeoutMs, maxRetries: 3 });
    const before = proxy.arrivals.length;
    const call = timed(() => petstore.createPet.mutate({ name: 'Stalled', categoryId: 1 }));
    // The garbage collector runs while the attempt stalls, as it may in any process: the attempt's
    // timeout must outlive it (undici's Request follows another's signal through a controller the
    // collector may take).
    for (let collections = 0; collections < 3; collections += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      collectGarbage();
    }
    const { result, ms } = await call;
    const attempts = proxy.arrivals.slice(before);
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts[0]?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(attempts.map(({ idempotencyKey }) => idempotencyKey))).toEqual(new Set([attempts[0]?.idempotencyKey]));
    expect(ms).toBeGreaterThanOrEqual(timeoutMs);
    expect(await named('Stalled')).toEqual([result]);
    console.info(`retry figures: stalled create abandoned after ${String(timeoutMs)} ms, answered after ${ms.toFixed(0)} ms in ${String(attempts.length)} requests`);
  }, 60_000);

  it('gives up after maxRetries, with the last answer', async () => {
    proxy.next({ kind: 'answer', status: 503, headers: { 'Retry-After': '0' } }, 3);
    const error = await viaProxy().getPet.query({ petId: 1 }).catch((caught: unknown) => caught);
    expect(sent).toHaveLength(3);
    if (!isPetstoreError(error)) throw new Error('expected a failed call');
    expect((error.meta?.response as Response | undefined)?.status).toBe(503);
    expect(error.data).toMatchObject({ code: 'SERVICE_UNAVAILABLE', httpStatus: 503 });
  });
});

describe('answers that say "no"', () => {
  it('are final: a 400 is not retried, and its error carries code, status and X-Request-Id', async () => {
    const error = await viaProxy().createPet.mutate({ name: ' ', categoryId: 1 }).catch((caught: unknown) => caught);
    expect(sent).toHaveLength(1);
    if (!isPetstoreError(error)) throw new Error('expected a failed call');
    expect(error.data).toEqual({ code: 'BAD_REQUEST', httpStatus: 400 });
    expect(requestIdOf(error)).toMatch(/\S/);

    const rest = await restViaProxy().POST('/pets', { body: { name: '', categoryId: 1 } });
    expect(sent).toHaveLength(2);
    expect(rest.error).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    expect(rest.response.headers.get('x-request-id')).toMatch(/\S/);
  });
});
