import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { createApiKeys } from '@petstore/core';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { type Answer, STREAM, type WireRequest, batch, bearer, envelopes, errorCodes, it, labelledAsOurs, normalise, send, single } from './support/trpc-wire.js';
import { wireRequest } from './support/trpc-wire-requests.js';

/**
 * `/trpc` must answer as tRPC's own node-http adapter serving the same router would: every
 * generated request goes to the service and then to that adapter (each on its own empty storage,
 * so ids and pages stay equal) and the answers must match. Where the service differs on purpose,
 * a test below names the difference and pins it down.
 */

const RUNS = Number(process.env.TRPC_WIRE_RUNS ?? 150);
const SEED = Number(process.env.TRPC_WIRE_SEED ?? Date.now() % 2 ** 31);
// Hundreds of requests, each answered twice, while both servers share the test's event loop: the
// limit stops a hung run, it does not measure speed.
const COMPARISON_TIMEOUT_MS = 120_000;

interface Served {
  url: string;
}

const sendBoth = async (subject: Served, reference: Served, wire: WireRequest, authorization: string | undefined) => {
  // One after the other, never together: both storages see the same requests in the same order.
  const ours = await send(subject.url, wire, authorization);
  return { ours, theirs: await send(reference.url, wire, authorization) };
};

/** A key that is well formed but no key's: its checksum fails, so no row is read. */
const MADE_UP_KEY = `pst_0123456789ab_${'A'.repeat(49)}`;

const compare = async (subject: Served, reference: Served, key: string, { selfCheck = false } = {}) => {
  // The same animals on both; only their data is checked here, the wire is what follows.
  for (const name of ['Ada', 'Bo', 'Cy']) {
    const { ours, theirs } = await sendBoth(subject, reference, single('POST', 'createPet', { name, categoryId: 1 }), bearer(key));
    expect(envelopes(ours)).toEqual(envelopes(theirs));
    expect(errorCodes(ours)).toEqual(['OK']);
  }
  try {
    await fc.assert(
      fc.asyncProperty(wireRequest, async (wire) => {
        const { ours, theirs } = await sendBoth(subject, reference, wire, bearer(key));
        expect(await normalise(ours)).toEqual(selfCheck ? await normalise(theirs) : labelledAsOurs(await normalise(theirs)));
      }),
      // No shrinking: once one answer differs the two storages may too, and smaller requests
      // tried after it could differ for that reason alone. The first difference is the finding.
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  } catch (error) {
    if (error instanceof Error) error.message = `TRPC_WIRE_SEED=${SEED} replays this run.\n${error.message}`;
    throw error;
  }
};

describe("/trpc answers as tRPC's own adapter", () => {
  it.for([false, true])(
    'agrees on every generated request, TRPC_ALLOW_METHOD_OVERRIDE=%s',
    { timeout: COMPARISON_TIMEOUT_MS },
    async (allowMethodOverride, { startServer, startReference }) => {
      const ours = await startServer({ TRPC_ALLOW_METHOD_OVERRIDE: String(allowMethodOverride) });
      await compare(ours, await startReference(allowMethodOverride, ours.db), ours.apiKey);
    },
  );

  // The harness itself: two instances of tRPC's adapter must agree on every request it makes,
  // or a difference found above could be the comparison's and not the service's.
  it.for([false, true])(
    "self-check: tRPC's adapter agrees with itself, allowMethodOverride=%s",
    { timeout: COMPARISON_TIMEOUT_MS },
    async (allowMethodOverride, { startReference }) => {
      const first = await startReference(allowMethodOverride);
      const { token } = await createApiKeys(first.db.apiKeys).create('default');
      await compare(first, await startReference(allowMethodOverride, first.db), token, { selfCheck: true });
    },
  );
});

const expectEveryCall = (answer: Answer, calls: number, code: string, status: number) => {
  expect(answer.status).toBe(status);
  expect(envelopes(answer)).toHaveLength(calls);
  for (const envelope of envelopes(answer)) expect(envelope.error?.data).toEqual({ code, httpStatus: status });
};

describe("where /trpc differs from tRPC's adapter", () => {
  const KEYLESS: { label: string; wire: WireRequest; calls: number; reference: string[] }[] = [
    { label: 'a query', wire: single('GET', 'listPets', { limit: 1 }), calls: 1, reference: ['UNAUTHORIZED'] },
    { label: 'an unknown procedure', wire: single('GET', 'nope'), calls: 1, reference: ['NOT_FOUND'] },
    { label: 'a mutation sent as GET', wire: single('GET', 'createPet'), calls: 1, reference: ['METHOD_NOT_SUPPORTED'] },
    { label: 'invalid input', wire: single('POST', 'createPet', { name: '' }), calls: 1, reference: ['UNAUTHORIZED'] },
    { label: 'input that is not JSON', wire: { method: 'GET', path: '/trpc/listPets?input=%7B' }, calls: 1, reference: ['UNAUTHORIZED'] },
    { label: 'a batch', wire: batch('GET', ['listPets', 'nope', 'getPet'], { 0: { limit: 0 } }), calls: 3, reference: ['UNAUTHORIZED', 'NOT_FOUND', 'UNAUTHORIZED'] },
    { label: 'a batch of mutations sent as GET', wire: batch('GET', ['createPet', 'nope']), calls: 2, reference: ['METHOD_NOT_SUPPORTED', 'NOT_FOUND'] },
    { label: 'a batch of creates', wire: batch('POST', ['createPet', 'createPet'], { 0: {}, 1: { name: 'Rex', categoryId: 1 } }), calls: 2, reference: ['UNAUTHORIZED', 'UNAUTHORIZED'] },
  ];
  // A streamed batch without a key: trpc-links.test.ts reads it with httpBatchStreamLink.
  it.for(KEYLESS)('the key is answered 401 before any call: $label', async ({ wire, calls, reference: expected }, { server, startReference }) => {
    const reference = await startReference(false, server.db);
    for (const authorization of [undefined, bearer(MADE_UP_KEY), `Basic ${server.apiKey}`]) {
      const ours = await send(server.url, wire, authorization);
      expectEveryCall(ours, calls, 'UNAUTHORIZED', 401);
      expect(ours.headers['www-authenticate']).toBe('Bearer realm="petstore"');
      // One envelope for a single call, an array for a batch, as tRPC answers either.
      expect(Array.isArray(JSON.parse(ours.text))).toBe(wire.path.includes('batch=1'));
      expect(errorCodes(await send(reference.url, wire, authorization))).toEqual(expected);
    }
  });

  // What tRPC refuses of a request as a whole comes before its context, and so before the key.
  it.for([
    { label: 'queries and mutations in one batch', wire: batch('POST', ['createPet', 'listPets'], { 0: { name: 'Rex', categoryId: 1 } }) },
    { label: 'a body in a media type tRPC does not read', wire: { ...single('POST', 'createPet', {}), headers: { 'Content-Type': 'text/plain' } } },
    { label: 'a path that is not percent-encoding', wire: { method: 'GET', path: '/trpc/list%ZZPets' } },
    { label: 'a streamed call that is no batch', wire: { ...single('GET', 'listPets'), headers: STREAM } },
  ])('a request tRPC refuses whole is refused so without a key too: $label', async ({ wire }, { server, startReference }) => {
    const reference = await startReference(false, server.db);
    for (const authorization of [undefined, bearer(MADE_UP_KEY)]) {
      const { ours, theirs } = await sendBoth(server, reference, wire, authorization);
      expect(await normalise(ours)).toEqual(labelledAsOurs(await normalise(theirs)));
      expect(ours.status).not.toBe(401);
    }
  });

  it('the quota: once a key has spent it, the request is refused whole with 429 and Retry-After', async ({ startServer, startReference }) => {
    const ours = await startServer({ RATE_LIMIT_PER_MINUTE: '3' });
    const reference = await startReference(false, ours.db);
    // Each call of a batch counts one, however its names are separated: three spend the quota of three.
    const spending = await sendBoth(ours, reference, { method: 'GET', path: '/trpc/listPets%2ClistPets,listPets?batch=1' }, bearer(ours.apiKey));
    const one = await sendBoth(ours, reference, single('GET', 'listPets'), bearer(ours.apiKey));
    const two = await sendBoth(ours, reference, batch('GET', ['listPets', 'getPet'], { 1: { petId: 1 } }), bearer(ours.apiKey));
    expect(spending.ours.status).toBe(200);
    expect(envelopes(spending.ours)).toHaveLength(3);
    for (const [refused, calls] of [[one.ours, 1], [two.ours, 2]] as const) {
      expectEveryCall(refused, calls, 'TOO_MANY_REQUESTS', 429);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    }
    // The reference has no quota: the same requests are answered as usual.
    expect([spending, one, two].map(({ theirs }) => theirs.status)).toEqual([200, 200, 207]);
  });

  it.for([
    { label: 'a create', wire: single('POST', 'createPet', { name: 'x'.repeat(70_000), categoryId: 1 }), calls: 1 },
    { label: 'a batch of creates', wire: batch('POST', ['createPet', 'createPet'], { 0: { name: 'x'.repeat(70_000), categoryId: 1 }, 1: { name: 'Rex', categoryId: 1 } }), calls: 2 },
  ])('413 for a body over 64 KiB: both refuse every call of $label, in their own words', async ({ wire, calls }, { server, startReference }) => {
    const { ours, theirs } = await sendBoth(server, await startReference(false, server.db), wire, bearer(server.apiKey));
    expectEveryCall(ours, calls, 'PAYLOAD_TOO_LARGE', 413);
    expectEveryCall(theirs, calls, 'PAYLOAD_TOO_LARGE', 413);
    for (const envelope of envelopes(ours)) expect(envelope.error?.message).toBe('The body is larger than 64 KiB.');
    // Apart from the message, the answers are the same.
    const withoutMessages = (answer: Answer) => normalise({ ...answer, text: answer.text.replace(/"message":"[^"]*"/g, '"message":""') });
    expect(await withoutMessages(ours)).toEqual(await withoutMessages(theirs));
  });

  it.for([
    { encoding: 'gzip', compress: gzipSync },
    { encoding: 'deflate', compress: deflateSync },
    { encoding: 'br', compress: brotliCompressSync },
  ])('Content-Encoding: ours reads a $encoding body as the plain one, the reference cannot', async ({ encoding, compress }, { server, startReference }) => {
    const reference = await startReference(false, server.db);
    const plain = single('POST', 'createPet', { name: `Zipped ${encoding}`, categoryId: 2 }, { 'Idempotency-Key': `wire-${encoding}` });
    const compressed = { ...plain, headers: { ...plain.headers, 'Content-Encoding': encoding }, body: compress(plain.body ?? '') };
    const first = await send(server.url, plain, bearer(server.apiKey));
    expect(first.status).toBe(200);
    // The same key and the same decoded body: the first answer, replayed.
    expect(await normalise(await send(server.url, compressed, bearer(server.apiKey)))).toEqual(await normalise(first));
    expectEveryCall(await send(reference.url, compressed, bearer(server.apiKey)), 1, 'BAD_REQUEST', 400);
  });

  it.for([
    { label: 'a create', wire: single('POST', 'createPet', { name: 'Rex', categoryId: 1 }), calls: 1 },
    { label: 'a batch of creates', wire: batch('POST', ['createPet', 'createPet'], { 0: { name: 'Rex', categoryId: 1 }, 1: { name: 'Tom', categoryId: 1 } }), calls: 2 },
  ])('Content-Encoding: ours refuses every call of $label in an encoding it does not take with 415', async ({ wire, calls }, { server }) => {
    const answer = await send(server.url, { ...wire, headers: { ...wire.headers, 'Content-Encoding': 'compress' } }, bearer(server.apiKey));
    expectEveryCall(answer, calls, 'UNSUPPORTED_MEDIA_TYPE', 415);
  });
});

describe("where /trpc labels tRPC's answer differently", () => {
  it.for([
    { label: 'queries and mutations in one batch', wire: batch('POST', ['createPet', 'listPets'], { 0: { name: 'Rex', categoryId: 1 } }) },
    { label: 'a body in a media type tRPC does not read', wire: { ...single('POST', 'createPet', {}), headers: { 'Content-Type': 'text/plain' } } },
    { label: 'a batch over the limit', wire: batch('GET', Array.from({ length: 51 }, () => 'listPets')) },
  ])('a refusal of the whole request is the same JSON, labelled application/json where tRPC says text/plain: $label', async ({ wire }, { server, startReference }) => {
    const { ours, theirs } = await sendBoth(server, await startReference(false, server.db), wire, bearer(server.apiKey));
    expect(theirs.headers['content-type']).toBe('text/plain;charset=UTF-8');
    expect(ours.headers['content-type']).toBe('application/json');
    expect([ours.status, JSON.parse(ours.text)]).toEqual([theirs.status, JSON.parse(theirs.text)]);
  });
});

describe('a batch over the limit', () => {
  const names = (count: number, separator: string) => Array.from({ length: count }, () => 'listPets').join(separator);
  it.for([
    { label: '51 names', path: `/trpc/${names(51, ',')}?batch=1` },
    { label: '51 names joined by %2C', path: `/trpc/${names(51, '%2C')}?batch=1` },
    { label: '51 names, separators mixed', path: `/trpc/${names(26, '%2c')},${names(25, '%2C')}?batch=1` },
    { label: '16,000 empty names', path: `/trpc/${','.repeat(16_000)}?batch=1` },
  ])('is refused whole, before the key, as tRPC refuses it, and costs one short answer: $label', async ({ path }, { server, startReference }) => {
    const reference = await startReference(false, server.db);
    for (const authorization of [bearer(server.apiKey), undefined]) {
      const { ours, theirs } = await sendBoth(server, reference, { method: 'GET', path }, authorization);
      expect(await normalise(ours)).toEqual(labelledAsOurs(await normalise(theirs)));
      expectEveryCall(ours, 1, 'BAD_REQUEST', 400);
      expect(Buffer.byteLength(ours.text)).toBeLessThan(256);
    }
  });

  it('of 50 names is not over it, however they are separated', async ({ server }) => {
    const answer = await send(server.url, { method: 'GET', path: `/trpc/${names(25, '%2C')},${names(25, ',')}?batch=1` }, bearer(server.apiKey));
    expect(errorCodes(answer)).toEqual(Array.from({ length: 50 }, () => 'OK'));
  });
});

describe('a path that is not the one sent', () => {
  // tRPC's adapter reads the procedure from the parsed URL, dot segments resolved: the first runs
  // createPet there, past a proxy rule written on /trpc/createPet. The service reads the path as
  // sent and refuses whole, before the key, what the parser would change, as naming no procedure.
  it.for([
    { label: 'a dot-dot segment', wire: { ...single('POST', 'createPet', { name: 'Rex', categoryId: 1 }), path: '/trpc/../abcdcreatePet' }, theirs: 200, quoted: '../abcdcreatePet' },
    { label: 'an encoded dot-dot segment', wire: { method: 'GET', path: '/trpc/%2e%2e/abcdlistPets' }, theirs: 200, quoted: '%2e%2e/abcdlistPets' },
    { label: 'a dot segment', wire: { method: 'GET', path: '/trpc/./listPets' }, theirs: 200, quoted: './listPets' },
    { label: 'a batch behind a dot-dot segment', wire: { method: 'GET', path: '/trpc/x/../listPets,listPets?batch=1' }, theirs: 200, quoted: 'x/../listPets,listPets' },
    { label: 'backslashes', wire: { method: 'GET', path: '/trpc/x\\..\\listPets' }, theirs: 200, quoted: 'x\\..\\listPets' },
  ])('is refused whole with 404 before the key, where tRPC runs the procedure it resolves to: $label', async ({ wire, theirs, quoted }, { server, startReference }) => {
    const reference = await startReference(false, server.db);
    const before = (await server.db.pets.page({ afterId: 0, take: 100 })).length;
    for (const authorization of [bearer(server.apiKey), undefined]) {
      const ours = await send(server.url, wire, authorization);
      expectEveryCall(ours, 1, 'NOT_FOUND', 404);
      expect(envelopes(ours)[0]?.error?.message).toBe(`No procedure found on path "${quoted}"`);
    }
    expect((await server.db.pets.page({ afterId: 0, take: 100 })).length).toBe(before);
    expect((await send(reference.url, wire, bearer(server.apiKey))).status).toBe(theirs);
  });

  it.for([
    { label: 'a trailing slash', path: '/trpc/listPets/' },
    { label: 'a name with a dot in it', path: '/trpc/list.Pets' },
    { label: 'characters the URL parser encodes', path: '/trpc/list{Pets}' },
  ])('is not what the parser leaves alone or only encodes: $label, answered as tRPC answers it', async ({ path }, { startServer, startReference }) => {
    // A service of its own: the reference's store is empty too.
    const server = await startServer();
    const { ours, theirs } = await sendBoth(server, await startReference(false, server.db), { method: 'GET', path }, bearer(server.apiKey));
    expect(await normalise(ours)).toEqual(labelledAsOurs(await normalise(theirs)));
  });
});

describe('where tRPC’s adapter fails', () => {
  it.for(['TRACE'])('a method a Fetch Request cannot carry (%s) is refused with 405 where tRPC’s adapter answers 500', async (method, { server, startReference }) => {
    const wire: WireRequest = { method, path: '/trpc/listPets' };
    const { ours, theirs } = await sendBoth(server, await startReference(false, server.db), wire, bearer(server.apiKey));
    expect(theirs.status).toBe(500);
    expectEveryCall(ours, 1, 'METHOD_NOT_SUPPORTED', 405);
    expect(ours.headers.allow).toBe('GET, HEAD, POST');
  });
});
