import { describe, expect } from 'vitest';
import { type TestServer, it } from '../src/testing/index.js';
import { call } from './support/http.js';

const remaining = (response: Response) => Number(/;r=(\d+);/.exec(response.headers.get('ratelimit') ?? '')?.[1]);

const create = (running: TestServer, name: string) => call(running, '/v1/pets', { method: 'POST', json: { name, categoryId: 1 } });

describe('conditional GETs', () => {
  it.for<[string, string]>([
    ['an animal', '/v1/pets/1'],
    ['a page', '/v1/pets?limit=5'],
  ])('answer %s again with 304 and no body while its ETag is current, each counted like the 200', async ([, path], { startServer }) => {
    const running = await startServer({ RATE_LIMIT_PER_MINUTE: '50' });
    await create(running, 'Rex');
    const first = await call(running, path);
    const tag = first.headers.get('etag');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    let left = remaining(first);

    // Each costs the read it answers for: `*` on a key with one request left is no way around the quota.
    for (const ifNoneMatch of [tag ?? '', `W/${tag ?? ''}`, `"other", ${tag ?? ''}`, '*']) {
      const again = await call(running, path, { headers: { 'If-None-Match': ifNoneMatch } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('etag')).toBe(tag);
      expect(remaining(again)).toBe(--left);
    }
    // A tag the client does not hold any more is answered in full.
    const stale = await call(running, path, { headers: { 'If-None-Match': '"stale"' } });
    expect(stale.status).toBe(200);
    expect(stale.headers.get('etag')).toBe(tag);
    expect(remaining(stale)).toBe(left - 1);
  });

  it('gives a page a new tag once a create changes it', async ({ startServer }) => {
    const running = await startServer();
    await create(running, 'Rex');
    const before = await call(running, '/v1/pets?limit=2');
    const tag = before.headers.get('etag') ?? '';
    await create(running, 'Tom');
    const after = await call(running, '/v1/pets?limit=2', { headers: { 'If-None-Match': tag } });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(tag);
    expect(await after.json()).toHaveLength(2);
  });

  it('gives a full page a new tag once an animal after it gives it a next page', async ({ startServer }) => {
    const running = await startServer();
    await create(running, 'Rex');
    const alone = await call(running, '/v1/pets?limit=1');
    expect(alone.headers.get('link')).toBeNull();
    await create(running, 'Tom');
    const again = await call(running, '/v1/pets?limit=1', { headers: { 'If-None-Match': alone.headers.get('etag') ?? '' } });
    // Same body, but now a Link to the next page, which a cached copy would not have.
    expect(again.status).toBe(200);
    expect(again.headers.get('link')).toMatch(/rel="next"/);
  });

  it('sends no ETag with a create', async ({ startServer }) => {
    const running = await startServer();
    expect((await create(running, 'Rex')).headers.get('etag')).toBeNull();
  });
});
