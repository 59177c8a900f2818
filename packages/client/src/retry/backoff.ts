const BASE_DELAY_MS = 250;
const MAX_BACKOFF_MS = 8_000;

/** `Retry-After` in milliseconds: delay-seconds or an HTTP-date (RFC 9110, section 10.2.3). */
export const retryAfterMs = (header: string | null, now = Date.now()): number | undefined => {
  if (header === null) return undefined;
  if (/^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};

/**
 * Exponential backoff with jitter (half fixed, half random) before retry number `retry` (from 0),
 * so that clients cut off together do not come back together.
 */
export const backoffMs = (retry: number): number => {
  const backoff = Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** retry);
  return backoff / 2 + Math.random() * (backoff / 2);
};

/** Waits, unless the caller aborts first. */
export const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
