import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect } from 'vitest';
import { type TestServer, it } from '../src/testing/index.js';
import { expectError, petsCount, rawRequest } from './support/http.js';

const rex = Buffer.from(JSON.stringify({ name: 'Rex', categoryId: 1 }));

const post = (server: TestServer, path: string, encoding: string, body: Buffer) =>
  rawRequest(server.url, {
    path,
    headers: { Authorization: `Bearer ${server.apiKey}`, 'Content-Type': 'application/json', 'Content-Encoding': encoding, 'Content-Length': String(body.length) },
    chunks: [body],
  });

const errorOf = (answer: { status: number; body: string }, path: string) => {
  const parsed = JSON.parse(answer.body) as { code?: string; status?: number; error?: { data: { code: string; httpStatus: number } } };
  return path.startsWith('/trpc') ? { status: answer.status, code: parsed.error?.data.code } : { status: answer.status, code: parsed.code };
};

describe.each(['/v1/pets', '/trpc/createPet'])('a body with a Content-Encoding, on %s', (path) => {
  it.for<[string, (body: Buffer) => Buffer]>([
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
    ['identity', (body: Buffer) => body],
  ])('is read when it really is %s', async ([encoding, compress], { server }) => {
    const before = await petsCount(server);
    const answer = await post(server, path, encoding, compress(rex));
    expect(answer.status).toBe(path.startsWith('/trpc') ? 200 : 201);
    expect(await petsCount(server)).toBe(before + 1);
  });

  it.for<[string, string, Buffer]>([
    ['gzip, but plain JSON', 'gzip', rex],
    ['br, but plain JSON', 'br', rex],
    ['deflate, but gzip', 'deflate', gzipSync(rex)],
    ['gzip, cut short', 'gzip', gzipSync(rex).subarray(0, 12)],
    ['gzip, of something that is not JSON', 'gzip', gzipSync(Buffer.from('not json'))],
  ])('is refused with 400 when it says %s, and nothing is stored', async ([, encoding, body], { server }) => {
    const before = await petsCount(server);
    expect(errorOf(await post(server, path, encoding, body), path)).toEqual({ status: 400, code: 'BAD_REQUEST' });
    expect(await petsCount(server)).toBe(before);
  });

  it.for(['compress', 'zstd', 'gzip, br', 'unheard-of'])('is refused with 415 when it is %s, an encoding the service does not take', async (encoding, { server }) => {
    expect(errorOf(await post(server, path, encoding, rex), path)).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('is refused with 413 when it inflates past the limit, however small it was sent', async ({ server }) => {
    const bomb = gzipSync(Buffer.from(JSON.stringify({ name: 'x'.repeat(1_000_000), categoryId: 1 })));
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(errorOf(await post(server, path, 'gzip', bomb), path)).toEqual({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('the REST Error body for an encoding problem', () => {
  it('says what is wrong', async ({ server }) => {
    const answer = await post(server, '/v1/pets', 'gzip', rex);
    const response = new Response(answer.body, { status: answer.status, headers: { 'content-type': 'application/json' } });
    const body = await expectError(response, 400, 'BAD_REQUEST');
    expect(body.message).toBe('The body is not valid gzip data.');
  });
});
