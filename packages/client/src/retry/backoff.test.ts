import { describe, expect, it } from 'vitest';
import { backoffMs, retryAfterMs } from './backoff.js';

describe('the wait before a retry', () => {
  it('reads Retry-After as seconds or as an HTTP-date', () => {
    const now = Date.parse('Mon, 23 Nov 2026 06:00:00 GMT');
    expect(retryAfterMs('3', now)).toBe(3_000);
    expect(retryAfterMs('Mon, 23 Nov 2026 06:00:02 GMT', now)).toBe(2_000);
    expect(retryAfterMs('Mon, 23 Nov 2026 05:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it('grows with each retry, with jitter, up to 8 s', () => {
    const waits = (retry: number) => Array.from({ length: 200 }, () => backoffMs(retry));
    for (const [retry, backoff] of [[0, 250], [1, 500], [2, 1_000], [10, 8_000]] as const) {
      const seen = waits(retry);
      expect(Math.min(...seen)).toBeGreaterThanOrEqual(backoff / 2);
      expect(Math.max(...seen)).toBeLessThanOrEqual(backoff);
      expect(new Set(seen).size).toBeGreaterThan(100);
    }
  });
});
