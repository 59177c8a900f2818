import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { FlatHeaders } from '../http/request-context.js';

/** The policy names the RateLimit headers carry: requests per key, failed authentications per client address. */
export const KEY_QUOTA = 'per-key';
export const ADDRESS_QUOTA = 'per-address';

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
  /**
   * Spends `points` (the calls one HTTP request carries) of the quota of `subject`: decided at
   * once when this instance can decide alone, after asking Redis otherwise.
   */
  spend(subject: string, points: number): QuotaDecision | Promise<QuotaDecision>;
  /** Whether `subject` could spend one more point, as this instance knows, without spending it or asking Redis. */
  peek(subject: string): QuotaDecision;
  /** Stops counting: sends nothing more to Redis. */
  close(): void;
}

/**
 * The most subjects a quota counts at once. Subjects come from outside (a client address can be
 * any of millions), so the table is bounded: past it, the window that started first is forgotten
 * (with Redis, what it had not yet sent is sent first), and that subject starts a new one.
 */
export const MAX_QUOTA_SUBJECTS = 10_000;

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
  /** What this instance spent since it last sent: all of its count without Redis. */
  pending: number;
  /** What this instance has sent and Redis has not yet answered: counted until `known` includes it. */
  sending: number;
  /** When `known` was learned. */
  learnedAt: number;
}

const secondsUntil = (until: number, now: number) => Math.max(1, Math.ceil((until - now) / 1000));

const spentIn = (window: Window) => window.known + window.sending + window.pending;

/**
 * A quota of requests per minute and subject (an API key, a client address). In one process it is
 * counted there, exactly. Shared through Redis, an instance counts in process while the subject is
 * far from its limit and its knowledge of the shared count is fresh, and adds what it counted to
 * Redis every QUOTA_SYNC_MS; once a subject has spent half its quota, or its count is stale, every
 * request is counted in Redis itself, so the limit holds across instances as long as, between two
 * syncs, the instances together take less than half a quota. A request far from the limit so costs
 * no Redis round trip (docs/decisions/2026-11-23-postgres-read-path.md). Redis is reached through
 * rate-limiter-flexible (atomic counts with their expiry); while it does not answer, the instance
 * decides on what it knows: the shared count it last learned and what it counted since. At most
 * MAX_QUOTA_SUBJECTS subjects are counted at once. Undefined when the limit is 0 (off).
 */
export const createQuota = ({ name, perMinute, redis, keyPrefix }: QuotaOptions): Quota | undefined => {
  if (perMinute === 0) return undefined;
  const windowMs = QUOTA_WINDOW_SECONDS * 1000;
  const shared = redis ? new RateLimiterRedis({ points: perMinute, duration: QUOTA_WINDOW_SECONDS, keyPrefix, storeClient: redis, rejectIfRedisNotReady: true }) : undefined;
  const policy = `"${name}";q=${perMinute};w=${QUOTA_WINDOW_SECONDS}`;
  // By when each window started, oldest first: a renewed window goes to the end.
  const windows = new Map<string, Window>();

  const headers = (window: Window, now: number): FlatHeaders => [
    'RateLimit-Policy', policy,
    'RateLimit', `"${name}";r=${Math.max(0, perMinute - spentIn(window))};t=${secondsUntil(window.until, now)}`,
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

  /**
   * Adds `points` and what is pending to the shared count: whether the total stays within the
   * quota, or `unanswered` when Redis did not answer (what was not sent is pending again).
   */
  const send = async (limiter: RateLimiterRedis, subject: string, window: Window, points: number): Promise<boolean | 'unanswered'> => {
    const sending = window.pending + points;
    window.pending = 0;
    window.sending += sending;
    try {
      learn(window, sending >= 0 ? await limiter.consume(subject, sending) : await limiter.reward(subject, -sending));
      return true;
    } catch (refusal) {
      // rate-limiter-flexible rejects with the counter's state when the quota is spent.
      if (!(refusal instanceof RateLimiterRes)) {
        window.pending += sending;
        return 'unanswered';
      }
      learn(window, refusal);
      return false;
    } finally {
      // Answered or failed, it is no longer on its way: `known` has it, or `pending` again.
      window.sending -= sending;
    }
  };

  /** Forgets the window that started first; with Redis, what it had not sent goes first. */
  const forgetOldest = (now: number) => {
    const [subject, window] = windows.entries().next().value as [string, Window];
    windows.delete(subject);
    if (shared && window.pending > 0 && now < window.until) send(shared, subject, window, 0).catch(() => undefined);
  };

  const windowOf = (subject: string, now: number) => {
    const window = windows.get(subject);
    if (window && now < window.until) return window;
    windows.delete(subject);
    while (windows.size >= MAX_QUOTA_SUBJECTS) forgetOldest(now);
    const fresh = { until: now + windowMs, known: 0, pending: 0, sending: 0, learnedAt: Number.NEGATIVE_INFINITY };
    windows.set(subject, fresh);
    return fresh;
  };

  const sync = setInterval(() => {
    const now = Date.now();
    for (const [subject, window] of windows) {
      if (now >= window.until) windows.delete(subject);
      // Redis away: what was not sent is sent with the next sync.
      else if (shared && window.pending !== 0) send(shared, subject, window, 0).catch(() => undefined);
    }
  }, shared ? QUOTA_SYNC_MS : windowMs).unref();

  /** Spends in the process, as long as what this instance knows of the count allows it. */
  const spendHere = (window: Window, points: number, now: number): QuotaDecision => {
    if (spentIn(window) + points > perMinute) return refused(window, now);
    window.pending += points;
    return { allowed: true, headers: headers(window, now) };
  };

  /** Spends in Redis itself: near the limit, or when what this instance knows of the count is stale. */
  const spendShared = async (limiter: RateLimiterRedis, subject: string, window: Window, points: number): Promise<QuotaDecision> => {
    const allowed = await send(limiter, subject, window, points);
    if (allowed === 'unanswered') {
      // Sent back to pending by `send`: this instance's own count decides.
      window.pending -= points;
      return spendHere(window, points, Date.now());
    }
    return allowed ? { allowed, headers: headers(window, Date.now()) } : refused(window, Date.now());
  };

  return {
    spend: (subject, points) => {
      const now = Date.now();
      const window = windowOf(subject, now);
      if (!shared) return spendHere(window, points, now);
      const fresh = now - window.learnedAt <= 2 * QUOTA_SYNC_MS;
      if (fresh && spentIn(window) + points <= perMinute / 2) return spendHere(window, points, now);
      return spendShared(shared, subject, window, points);
    },
    peek: (subject) => {
      const now = Date.now();
      const window = windows.get(subject);
      if (!window || now >= window.until) return { allowed: true, headers: [] };
      return spentIn(window) + 1 > perMinute ? refused(window, now) : { allowed: true, headers: headers(window, now) };
    },
    close: () => {
      clearInterval(sync);
    },
  };
};
