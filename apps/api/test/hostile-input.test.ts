import { request } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { assertMatchesContract, it } from '../src/testing/index.js';
import { call, expectErrorBody } from './support/http.js';

it.beforeAll(async ({ server }) => {
  await call(server, '/v1/pets', { method: 'POST', json: { name: 'Resident', categoryId: 1 } });
});

interface Hostile {
  method: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body: string | Buffer | undefined;
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
  header(name: string): string | null;
}

const send = (url: string, hostile: Hostile) =>
  new Promise<Answer>((resolve, reject) => {
    const search = new URLSearchParams(hostile.query).toString();
    const req = request(
      `${url}${hostile.path}${search ? `?${search}` : ''}`,
      // A connection of its own, so one request's leftovers never become the next one's answer.
      { method: hostile.method, headers: hostile.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers['content-type'] ?? '',
            text: Buffer.concat(chunks).toString('utf8'),
            header: (name) => {
              const value = res.headers[name.toLowerCase()];
              return value === undefined ? null : String(value);
            },
          });
        });
      },
    );
    // The server may answer (413, 401) before a large body is sent and close the connection.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    req.end(hostile.body);
  });

// Printable ASCII only where Node's HTTP client itself refuses anything else; raw bytes are
// covered by the malformed-request tests.
const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength: 300 });
const anyText = fc.oneof(fc.string({ maxLength: 50 }), fc.string({ unit: 'grapheme', maxLength: 50 }), printable);

const deepNesting = fc.integer({ min: 1, max: 20_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`);
const pollution = fc.constantFrom(
  '{"__proto__": {"polluted": true}, "name": "Rex", "categoryId": 1}',
  '{"constructor": {"prototype": {"polluted": true}}, "name": "Rex", "categoryId": 1}',
  '{"name": "Rex", "categoryId": 1, "__proto__": null}',
);
const hugeNumbers = fc.constantFrom('{"name":"Rex","categoryId":1e309}', '{"name":"Rex","categoryId":-1e309}', '{"name":"Rex","categoryId":9007199254740993}', '{"name":"Rex","categoryId":1.0000000000000002}');

const body = fc.oneof(
  fc.constant(undefined),
  fc.constant(JSON.stringify({ name: 'Rex', categoryId: 2 })),
  fc.json({ maxDepth: 6 }),
  anyText,
  deepNesting,
  pollution,
  hugeNumbers,
  fc.integer({ min: 60_000, max: 1_200_000 }).map((size) => JSON.stringify({ name: 'x'.repeat(size), categoryId: 1 })),
  fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes)),
);

const path = fc.oneof(
  fc.constantFrom('/v1/pets', '/v1/pets/1', '/v1/pets/abc', '/v1/pets/0', '/v1/openapi.json', '/v1', '/v1/', '/healthz', '/readyz', '/trpc/listPets', '/trpc/createPet', '/trpc/nope', '/docs', '/'),
  fc.webPath().map((webPath) => `/v1${webPath}`),
  fc.webPath(),
  fc.array(anyText, { maxLength: 4 }).map((segments) => `/v1/pets/${segments.map(encodeURIComponent).join('/')}`),
  fc.constantFrom('/v1/pets/%E0%A4%A', '/v1/pets/%00', '/v1/pets/..%2F..%2Fetc%2Fpasswd', `/v1/pets/${'9'.repeat(400)}`),
);

const queryKey = fc.oneof(fc.constantFrom('limit', 'status', 'cursor', '__proto__', 'constructor', 'constructor[prototype]', 'limit[]'), anyText);
const queryValue = fc.oneof(fc.constantFrom('', '0', '101', '1e309', '-1', '20', 'available', 'sold', '[object Object]', '9'.repeat(500)), anyText);

const authorization = fc.oneof(
  fc.constant(undefined),
  fc.constant('valid'),
  printable,
  printable.map((token) => `Bearer ${token}`),
  fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', `Bearer ${'a'.repeat(8_000)}`, 'bearer  pst_x'),
);
const contentType = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'APPLICATION/JSON', 'application/jsonx'),
  printable,
);

// A body labelled with a Content-Encoding it may or may not have: sent as it is (mislabelled),
// really compressed, compressed and cut short, or compressed in another encoding than it says.
const contentEncoding = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom('gzip', 'x-gzip', 'deflate', 'br', 'identity', 'GZIP', 'compress', 'zstd', 'gzip, br', 'gzip, gzip', ''),
  printable,
);
const COMPRESSORS: Record<string, (input: Buffer) => Buffer> = { gzip: gzipSync, 'x-gzip': gzipSync, deflate: deflateSync, br: brotliCompressSync };
const encodedAs = fc.constantFrom('as-is', 'compressed', 'truncated', 'other-encoding');
const encodeBody = (payload: string | Buffer | undefined, encoding: string | undefined, how: string) => {
  const compress = COMPRESSORS[encoding?.toLowerCase() ?? ''];
  if (payload === undefined || !compress || how === 'as-is') return payload;
  const compressed = (how === 'other-encoding' ? (encoding === 'br' ? gzipSync : brotliCompressSync) : compress)(Buffer.from(payload));
  return how === 'truncated' ? compressed.subarray(0, Math.floor(compressed.length / 2)) : compressed;
};

/** Requests of every kind; `apiKey` is the valid key some of them carry. */
const hostileRequest = (apiKey: string) =>
  fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND'),
      path,
      query: fc.array(fc.tuple(queryKey, queryValue), { maxLength: 6 }),
      authorization,
      contentType,
      idempotencyKey: fc.option(printable, { nil: undefined }),
      encoding: contentEncoding,
      encodedAs,
      body,
    })
    .map(({ method, authorization: auth, contentType: type, idempotencyKey, encoding, encodedAs: how, body: payload, ...rest }): Hostile => ({
      ...rest,
      method,
      // GET and HEAD carry no body, and TRACE must not (RFC 9110).
      body: method === 'GET' || method === 'HEAD' || method === 'TRACE' ? undefined : encodeBody(payload, encoding, how),
      headers: {
        ...(auth !== undefined && { Authorization: auth === 'valid' ? `Bearer ${apiKey}` : auth }),
        ...(type !== undefined && { 'Content-Type': type }),
        ...(encoding !== undefined && { 'Content-Encoding': encoding }),
        ...(idempotencyKey !== undefined && { 'Idempotency-Key': idempotencyKey }),
      },
    }));

const RUNS = 2_500;

describe('hostile input', () => {
  it('never breaks the server: no 5xx, and every error is an Error body with its status', async ({ server }) => {
    await fc.assert(
      fc.asyncProperty(hostileRequest(server.apiKey), async (hostile) => {
        const answer = await send(server.url, hostile);
        expect(answer.status).toBeLessThan(500);
        const url = new URL(`${server.url}${hostile.path}`);
        // The pages are HTML: the docs page, and the root's page of links (`/`, a trailing slash aside) when a GET reaches it.
        const rootPage = /^\/\/?$/.test(url.pathname) && answer.status === 200;
        if (hostile.method === 'HEAD' || url.pathname.startsWith('/docs') || rootPage) return;
        expect(answer.contentType).toMatch(/^application\/json/);
        const parsed = JSON.parse(answer.text) as unknown;
        if (answer.status >= 400 && url.pathname.startsWith('/trpc')) {
          // tRPC's envelope (one per call of a batch), carrying the Error body's code and status.
          const errors = (Array.isArray(parsed) ? parsed : [parsed]) as { error?: { data?: { httpStatus?: number } } }[];
          expect(errors.some((item) => item.error?.data?.httpStatus === answer.status)).toBe(true);
        } else if (answer.status >= 400) {
          expectErrorBody(parsed, answer.status);
        }
        await assertMatchesContract({ method: hostile.method, url: url.href, status: answer.status, header: (name) => answer.header(name), text: answer.text });
      }),
      { numRuns: RUNS, seed: Number(process.env.HOSTILE_SEED ?? Date.now() % 2 ** 31) },
    );
    // Thousands of requests one after another: about 5 s alone, four times that when the whole
    // suite shares two cores. The limit stops a hung run; it does not measure speed.
  }, 120_000);

  it('leaves the process unpolluted and the service answering', async ({ server }) => {
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await call(server, '/healthz')).status).toBe(200);
    expect((await call(server, '/readyz')).status).toBe(200);
    const created = await call(server, '/v1/pets', { method: 'POST', json: { name: 'Still here', categoryId: 5 } });
    expect(created.status).toBe(201);
    const listed = await call(server, '/v1/pets?limit=1');
    expect(await listed.json()).toEqual([expect.objectContaining({ name: 'Resident' })]);
  });
});
