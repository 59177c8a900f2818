import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../src/seed.js';
import { READY_LINE, handedEnvironment } from '../src/targets/ready.js';
import { TARGET_START_TIMEOUT_MS } from '../src/target-process.js';
import { UNREACHED_QUOTA_PER_MINUTE } from '../src/targets/unreached-quota.js';

// The Fastify peer with the features on keeps each of them on: a peer that dropped one would cost
// less than what a team choosing Fastify deploys, and REST's verdict against it would flatter the
// service. It runs as built, its stdout read here: its access lines are what is checked.

const PEER = fileURLToPath(new URL('../dist/targets/fastify-features-peer.js', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'petstore-fastify-features-'));
let peer: ChildProcess;
let baseUrl = '';
let apiKey = '';
let output = '';

beforeAll(async () => {
  const file = join(folder, 'pets.db');
  ({ apiKey } = await seedDatabase(file, 5));
  peer = spawn(process.execPath, [PEER], { env: { ...process.env, ...handedEnvironment({ file }, apiKey) }, stdio: ['ignore', 'pipe', 'inherit'] });
  peer.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  // As long as the bench gives a target to start, by the clock: on a busy machine a start takes
  // many times its quiet second, and each wait below longer than its 50 ms.
  const deadline = performance.now() + TARGET_START_TIMEOUT_MS;
  while (!READY_LINE.test(output)) {
    if (performance.now() > deadline) throw new Error(`the peer did not say which port it took within ${String(TARGET_START_TIMEOUT_MS)} ms: ${output}`);
    await sleep(50);
  }
  baseUrl = `http://127.0.0.1:${READY_LINE.exec(output)?.[1] ?? ''}`;
}, TARGET_START_TIMEOUT_MS + 10_000);

afterAll(async () => {
  const exited = once(peer, 'exit');
  peer.kill();
  await exited;
  rmSync(folder, { recursive: true, force: true });
});

const call = (path: string, { key = apiKey, headers = {}, json }: { key?: string; headers?: Record<string, string>; json?: unknown } = {}) =>
  fetch(`${baseUrl}${path}`, {
    method: json === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${key}`, ...(json !== undefined && { 'Content-Type': 'application/json' }), ...headers },
    body: json === undefined ? undefined : JSON.stringify(json),
  });

interface AccessLine {
  reqId?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
}

/** The JSON lines the peer wrote that carry this request id, once the answer's line is there (it is written after the answer). */
const linesOf = async (reqId: string): Promise<AccessLine[]> => {
  const carrying = () =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as AccessLine)
      .filter((line) => line.reqId === reqId);
  for (let waited = 0; carrying().length === 0 && waited < 2_000; waited += 20) await sleep(20);
  await sleep(50);
  return carrying();
};

const remaining = (response: Response) => Number(response.headers.get('ratelimit-remaining'));

describe('the Fastify peer with features on', () => {
  it.for([
    { label: 'an answer', path: '/v1/pets/1', key: undefined, status: 200 },
    { label: 'a refusal', path: '/v1/pets', key: 'nonsense', status: 401 },
  ])('writes one access line to stdout for $label, with its request id, method, path, status and time', async ({ path, key, status }) => {
    const reqId = `features.${status}`;
    const response = await call(path, { key, headers: { 'X-Request-Id': reqId } });
    expect(response.status).toBe(status);
    const lines = await linesOf(reqId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ reqId, req: { method: 'GET', url: path }, res: { statusCode: status }, responseTime: expect.any(Number) });
  });

  it('echoes the request id it was sent in X-Request-Id, and gives one when none was sent', async () => {
    expect((await call('/v1/pets/1', { headers: { 'X-Request-Id': 'sent.1' } })).headers.get('x-request-id')).toBe('sent.1');
    const given = (await call('/v1/pets/1')).headers.get('x-request-id');
    expect(given).toMatch(/\S/);
    expect(await linesOf(given ?? '')).toHaveLength(1);
  });

  it.for(['/v1/pets/1', '/v1/pets?limit=2', '/v1/nothing-here'])("sends helmet's security headers and Cache-Control: no-store on %s", async (path) => {
    const { headers } = await call(path);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('x-content-type-options')).toBe('nosniff');
    expect(headers.get('content-security-policy')).toContain("object-src 'none'");
    expect(headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
    expect(headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });

  it.for(['/v1/pets/1', '/v1/pets?limit=2'])('tags %s with an ETag and answers 304 to a matching If-None-Match', async (path) => {
    const first = await call(path);
    const tag = first.headers.get('etag');
    expect(tag).toMatch(/^"[^"]+"$/);
    const again = await call(path, { headers: { 'If-None-Match': tag ?? '' } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('tags no create with an ETag: it is no representation to revalidate', async () => {
    const created = await call('/v1/pets', { json: { name: 'Rex', categoryId: 1 } });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBeNull();
  });

  it('counts every request with the held key against its quota, with the RateLimit headers, and none with a key refused', async () => {
    const first = await call('/v1/pets/1');
    expect(first.headers.get('ratelimit-limit')).toBe(String(UNREACHED_QUOTA_PER_MINUTE));
    expect(first.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    const refused = await call('/v1/pets/1', { key: 'nonsense' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('ratelimit-remaining')).toBeNull();
    const created = await call('/v1/pets', { json: { name: 'Rex', categoryId: 1 } });
    const listed = await call('/v1/pets');
    expect([remaining(created), remaining(listed)]).toEqual([remaining(first) - 1, remaining(first) - 2]);
  });
});
