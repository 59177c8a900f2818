import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { FlatHeaders } from '../exchange/exchange.js';

/** Every quota counts requests per minute. */
export const QUOTA_WINDOW_SECONDS = 60;
/** How often an instance adds what it counted to the count instances share, and learns the total. */
export const QUOTA_SYNC_MS = 100;

export interface QuotaDecision {
  allowed: boolean;
  /** `RateLimit` and `RateLimit-Policy` (IETF httpapi draft), plus `Retry-After` when refused. */
  headers: FlatHeaders;
  /** Seconds until the quota allows another request, when refused. */
  retryAfterSeconds?: number;
}

export interface Quota {
  /** Spends `points` (the calls one HTTP request carries) of the quota of `subject`. */
  spend(subject: string, points: number): Promise<QuotaDecision>;
  /** Gives back what a request turned out not to cost (a 304); the RateLimit headers as they now stand. */
  giveBack(subject: string, points: number): FlatHeaders;
  /** Stops counting: sends nothing more to Redis. */
  close(): void;
}

export interface QuotaOptions {
  /** The policy's name in the RateLimit headers: `per-key`, `per-address`. */
  name: string;
  perMinute: number;
  /** Where several instances share the count; absent: in this process. */
  redis?: Redis | undefined;
  keyPrefix: string;
}

/** One subject's window, as this instance sees it. */
interface Window {
  /** When the window ends (Redis's end, once learned). */
  until: number;
  /** The count all instances share, as last learned from Redis (what this instance sent included). */
  known: number;
  /** What this instance spent, or gave back, since it last sent: all of its count without Redis. */
  pending: number;
  /** What this instance has sent and Redis has not yet answered: counted until `known` includes it. */
  sending: number;
  /** When `known` was learned. */
  learnedAt: number;
}

const secondsUntil = (until: number, now: number) => Math.max(1, Math.ceil((until - now) / 1000));

/**
 * A quota of requests per minute and subject (an API key, a client address). In one process it is
 * counted there, exactly. Shared through Redis, an instance counts in process while the subject is
 * far from its limit and its knowledge of the shared count is fresh, and adds what it counted to
 * Redis every QUOTA_SYNC_MS; once a subject has spent half its quota, or its count is stale, every
 * request is counted in Redis itself, so the limit holds across instances as long as, between two
 * syncs, the instances together take less than half a quota. A request far from the limit so costs
 * no Redis round trip (docs/decisions has the figures). Redis is reached through
 * rate-limiter-flexible: atomic counts with their expiry, and its insurance limiter (this
 * instance's own count) while Redis is away. Undefined when the limit is 0 (off).
 */
export const createQuota = ({ name, perMinute, redis, keyPrefix }: QuotaOptions): Quota | undefined => {
  if (perMinute === 0) return undefined;
  const windowMs = QUOTA_WINDOW_SECONDS * 1000;
  const options = { points: perMinute, duration: QUOTA_WINDOW_SECONDS, keyPrefix };
  const shared = redis
    ? new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(options) })
    : undefined;
  const policy = `"${name}";q=${perMinute};w=${QUOTA_WINDOW_SECONDS}`;
  const windows = new Map<string, Window>();

  const windowOf = (subject: string, now: number) => {
    let window = windows.get(subject);
    if (!window || now >= window.until) windows.set(subject, (window = { until: now + windowMs, known: 0, pending: 0, sending: 0, learnedAt: Number.NEGATIVE_INFINITY }));
    return window;
  };
  const headers = (window: Window, now: number): FlatHeaders => [
    'RateLimit-Policy', policy,
    'RateLimit', `"${name}";r=${Math.max(0, perMinute - window.known - window.sending - window.pending)};t=${secondsUntil(window.until, now)}`,
  ];
  const refused = (window: Window, now: number): QuotaDecision => {
    const retryAfterSeconds = secondsUntil(window.until, now);
    return { allowed: false, retryAfterSeconds, headers: [...headers(window, now), 'Retry-After', retryAfterSeconds] };
  };
  const learn = (window: Window, result: RateLimiterRes) => {
    const now = Date.now();
    window.known = result.consumedPoints;
    window.until = now + result.msBeforeNext;
    window.learnedAt = now;
  };

  /** Adds `points` and what is pending to the shared count; whether the total stays within the quota. */
  const send = async (limiter: RateLimiterRedis, subject: string, window: Window, points: number) => {
    const sending = window.pending + points;
    window.pending = 0;
    window.sending += sending;
    try {
      learn(window, sending >= 0 ? await limiter.consume(subject, sending) : await limiter.reward(subject, -sending));
      return true;
    } catch (refusal) {
      // rate-limiter-flexible rejects with the counter's state when the quota is spent.
      if (!(refusal instanceof RateLimiterRes)) {
        window.pending += sending - points;
        throw refusal;
      }
      learn(window, refusal);
      return false;
    } finally {
      // Answered or failed, it is no longer on its way: `known` has it, or `pending` again.
      window.sending -= sending;
    }
  };

  const sync = shared
    ? setInterval(() => {
        const now = Date.now();
        for (const [subject, window] of windows) {
          if (now >= window.until) windows.delete(subject);
          // Redis away: what was not sent is sent with the next sync.
          else if (window.pending !== 0) send(shared, subject, window, 0).catch(() => undefined);
        }
      }, QUOTA_SYNC_MS).unref()
    : undefined;

  return {
    spend: async (subject, points) => {
      const now = Date.now();
      const window = windowOf(subject, now);
      if (!shared) {
        if (window.pending + points > perMinute) return refused(window, now);
        window.pending += points;
        return { allowed: true, headers: headers(window, now) };
      }
      const fresh = now - window.learnedAt <= 2 * QUOTA_SYNC_MS;
      if (fresh && window.known + window.sending + window.pending + points <= perMinute / 2) {
        window.pending += points;
        return { allowed: true, headers: headers(window, now) };
      }
      const allowed = await send(shared, subject, window, points);
      return allowed ? { allowed, headers: headers(window, Date.now()) } : refused(window, Date.now());
    },
    giveBack: (subject, points) => {
      const now = Date.now();
      const window = windowOf(subject, now);
      window.pending -= points;
      return headers(window, now);
    },
    close: () => {
      clearInterval(sync);
    },
  };
};
