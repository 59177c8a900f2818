import { describe, expect, it } from 'vitest';
import { delayBeforeRetry, retryAfterMs } from './backoff.js';

describe('the wait before a retry', () => {
  it('reads Retry-After as seconds or as an HTTP-date', () => {
    const now = Date.parse('Mon, 23 Nov 2026 06:00:00 GMT');
    expect(retryAfterMs('3', now)).toBe(3_000);
    expect(retryAfterMs('Mon, 23 Nov 2026 06:00:02 GMT', now)).toBe(2_000);
    expect(retryAfterMs('Mon, 23 Nov 2026 05:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it('grows with each attempt, with jitter, when the service names no time', () => {
    const waits = (attempt: number) => Array.from({ length: 200 }, () => delayBeforeRetry(attempt, null));
    for (const [attempt, backoff] of [[0, 250], [1, 500], [2, 1_000]] as const) {
      const seen = waits(attempt);
      expect(Math.min(...seen)).toBeGreaterThanOrEqual(backoff / 2);
      expect(Math.max(...seen)).toBeLessThanOrEqual(backoff);
      expect(new Set(seen).size).toBeGreaterThan(100);
    }
    expect(delayBeforeRetry(1, '2')).toBe(2_000);
  });
});
