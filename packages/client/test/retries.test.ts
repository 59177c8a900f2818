import { type TestServer, startTestServer } from '@petstore/api/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DeadlineExceededError,
  type Pet,
  type PetstoreClientOptions,
  type QueryLink,
  type RetryEvent,
  createPetstoreClient,
  createPetstoreRestClient,
  isPetstoreError,
  pagesOfPets,
  requestIdOf,
} from '../src/index.js';
import { collectGarbage } from './support/collect-garbage.js';
import { type FlakyProxy, startFlakyProxy } from './support/flaky-proxy.js';

/** Node's timers are due by a millisecond clock: one may fire just under its delay as performance.now() reads it. */
const TIMER_SLACK_MS = 2;

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
  proxy.clear();
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
    expect(ms).toBeGreaterThanOrEqual(1_000 - TIMER_SLACK_MS);
    console.info(`retry figures: 429 with Retry-After: 1 waited out, answered after ${ms.toFixed(0)} ms in ${String(sent.length)} requests`);
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
    expect(ms).toBeGreaterThanOrEqual(timeoutMs - TIMER_SLACK_MS);
    expect(await named('Stalled')).toEqual([result]);
    console.info(`retry figures: stalled create abandoned after ${String(timeoutMs)} ms, answered after ${ms.toFixed(0)} ms in ${String(attempts.length)} requests`);
  }, 60_000);

  it('gives up after maxRetries, with the last answer', async () => {
    proxy.next({ kind: 'answer', status: 503, headers: { 'Retry-After': '0' } }, 3);
    const error = await viaProxy().getPet.query({ petId: 1 }).catch((caught: unknown) => caught);
    expect(sent).toHaveLength(3);
    if (!isPetstoreError(error)) throw new Error('expected a failed call');
    // Streamed, the refusal comes inside an answer of 200, with its status in the call's data.
    expect((error.meta?.response as Response | undefined)?.status).toBe(200);
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

/** How a read travels: one of tRPC's links, or REST. */
type Carrier = QueryLink | 'REST';
const CARRIERS: Carrier[] = ['httpBatchStreamLink', 'httpBatchLink', 'httpLink', 'REST'];

/** What a read through `carrier` ended with: its status when the service (or the proxy) answered, the error when none did. */
interface Ending {
  ok: boolean;
  status?: number | undefined;
  code?: string | undefined;
  error?: unknown;
  ms: number;
  retries: RetryEvent[];
}

/** `listPets` of one animal through `carrier`, with the test's recording fetch and `options`. */
const readThrough = async (carrier: Carrier, url: string, apiKey: string, options: Partial<PetstoreClientOptions> = {}, signal?: AbortSignal): Promise<Ending> => {
  const retries: RetryEvent[] = [];
  const settings = { ...options, url, apiKey, fetch: recordingFetch, onRetry: (event: RetryEvent) => { retries.push(event); options.onRetry?.(event); } };
  const started = performance.now();
  const ms = () => performance.now() - started;
  if (carrier === 'REST') {
    try {
      const { response, error } = await createPetstoreRestClient(settings).GET('/pets', { params: { query: { limit: 1 } }, ...(signal && { signal }) });
      return { ok: response.ok, status: response.status, code: error?.code, ms: ms(), retries };
    } catch (error) {
      return { ok: false, error, ms: ms(), retries };
    }
  }
  try {
    await createPetstoreClient({ ...settings, queryLink: carrier }).listPets.query({ limit: 1 }, signal && { signal });
    return { ok: true, status: 200, ms: ms(), retries };
  } catch (error) {
    if (!isPetstoreError(error)) throw error;
    return { ok: false, status: error.data?.httpStatus, code: error.data?.code, error: error.data === undefined ? error.cause : undefined, ms: ms(), retries };
  }
};
const callName = (carrier: Carrier) => (carrier === 'REST' ? 'GET /v1/pets' : 'listPets');

describe('every link and REST retry the same refusals the same way', () => {
  it.for(CARRIERS.flatMap((carrier) => [429, 503].map((status) => [carrier, status] as const)))(
    '%s: waits out %i with Retry-After: 1, then succeeds',
    async ([carrier, status]) => {
      proxy.next({ kind: 'answer', status, headers: { 'Retry-After': '1' } });
      const ending = await readThrough(carrier, proxy.url, server.apiKey);
      expect(ending).toMatchObject({ ok: true, status: 200 });
      expect(ending.retries).toEqual([{ call: callName(carrier), attempt: 1, delayMs: 1_000, status }]);
      expect(sent).toHaveLength(2);
      expect(ending.ms).toBeGreaterThanOrEqual(1_000 - TIMER_SLACK_MS);
    },
  );

  it.for(CARRIERS)("%s: retries a proxy's own 503 page (HTML, not the service's JSON) after backoff", async (carrier) => {
    proxy.next({ kind: 'page', status: 503, headers: {} });
    const ending = await readThrough(carrier, proxy.url, server.apiKey);
    expect(ending).toMatchObject({ ok: true, status: 200 });
    expect(ending.retries).toEqual([{ call: callName(carrier), attempt: 1, delayMs: expect.any(Number), status: 503 }]);
    expect(ending.retries[0]?.delayMs).toBeLessThanOrEqual(250);
  });

  it.for(CARRIERS)('%s: retries a read whose connection is cut after the service answered', async (carrier) => {
    proxy.next({ kind: 'cut-after-answer' });
    const ending = await readThrough(carrier, proxy.url, server.apiKey);
    expect(ending).toMatchObject({ ok: true, status: 200 });
    expect(ending.retries).toEqual([{ call: callName(carrier), attempt: 1, delayMs: expect.any(Number), error: expect.anything() }]);
    expect(sent).toHaveLength(2);
  });

  describe("the service's own 429, from a quota of one call a minute", () => {
    let limited: TestServer;
    beforeAll(async () => {
      limited = await startTestServer({ RATE_LIMIT_PER_MINUTE: '1' });
      await createPetstoreClient({ url: limited.url, apiKey: limited.apiKey }).listPets.query({ limit: 1 }).catch(() => undefined);
    });
    afterAll(() => limited.dispose());

    it.for(CARRIERS)('%s: is given to the caller at once when its Retry-After is past the longest wait (10 s)', async (carrier) => {
      const ending = await readThrough(carrier, limited.url, limited.apiKey);
      expect(ending).toMatchObject({ ok: false, status: 429, code: 'TOO_MANY_REQUESTS', retries: [] });
      expect(sent).toHaveLength(1);
      // Waiting what it asks (tens of seconds, the quota's window being a minute) would pass this.
      expect(ending.ms).toBeLessThan(8_000);
    });

    it.for(CARRIERS)('%s: is waited out as its Retry-After asks when the longest wait allows it', async (carrier) => {
      const stop = new AbortController();
      const ending = await readThrough(
        carrier,
        limited.url,
        limited.apiKey,
        {
          maxRetryDelayMs: 120_000,
          deadlineMs: 180_000,
          // What it would wait is seen; the test need not wait it.
          onRetry: () => {
            stop.abort();
          },
        },
        stop.signal,
      );
      expect(ending.ok).toBe(false);
      expect(ending.retries).toEqual([{ call: callName(carrier), attempt: 1, delayMs: expect.any(Number), status: 429 }]);
      const { delayMs = 0 } = ending.retries[0] ?? {};
      expect(delayMs % 1_000).toBe(0);
      expect(delayMs).toBeGreaterThan(0);
      expect(delayMs).toBeLessThanOrEqual(60_000);
    });
  });
});

describe("a call's deadline and the longest wait", () => {
  it.for(CARRIERS)('%s: a call whose attempt hangs ends at deadlineMs, not at timeoutMs', async (carrier) => {
    proxy.next({ kind: 'stall' });
    const ending = await readThrough(carrier, proxy.url, server.apiKey, { timeoutMs: 60_000, deadlineMs: 1_500 });
    expect(ending.ok).toBe(false);
    expect(ending.error).toBeInstanceOf(DeadlineExceededError);
    expect(ending.error).toMatchObject({ call: callName(carrier), deadlineMs: 1_500, attempts: 1 });
    expect(ending.ms).toBeGreaterThanOrEqual(1_500 - TIMER_SLACK_MS);
    expect(ending.ms).toBeLessThan(30_000);
  });

  it.for(CARRIERS)('%s: no wait starts that would end past the deadline: the call ends with the refusal', async (carrier) => {
    proxy.next({ kind: 'answer', status: 503, headers: { 'Retry-After': '1' } }, 5);
    const ending = await readThrough(carrier, proxy.url, server.apiKey, { maxRetries: 5, deadlineMs: 1_500 });
    expect(ending).toMatchObject({ ok: false, status: 503, code: 'SERVICE_UNAVAILABLE' });
    // One wait of a second, then a second refusal, whose wait would end past 1.5 s.
    expect(ending.retries).toHaveLength(1);
    expect(sent).toHaveLength(2);
  });

  it.for(CARRIERS)('%s: a Retry-After past maxRetryDelayMs ends the call with the refusal at once', async (carrier) => {
    proxy.next({ kind: 'answer', status: 429, headers: { 'Retry-After': '30' } });
    const ending = await readThrough(carrier, proxy.url, server.apiKey, { maxRetryDelayMs: 5_000 });
    expect(ending).toMatchObject({ ok: false, status: 429, code: 'TOO_MANY_REQUESTS', retries: [] });
    expect(sent).toHaveLength(1);
    expect(ending.ms).toBeLessThan(20_000);
  });
});
