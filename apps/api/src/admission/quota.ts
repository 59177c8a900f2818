import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { FlatHeaders } from '../front-door/exchange.js';

/** Every quota counts requests per minute. */
export const QUOTA_WINDOW_SECONDS = 60;

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
  giveBack(subject: string, points: number): Promise<FlatHeaders>;
}

export interface QuotaOptions {
  /** The policy's name in the RateLimit headers: `per-key`, `per-address`. */
  name: string;
  perMinute: number;
  /** Where several instances share the count; absent: in this process. */
  redis?: Redis | undefined;
  keyPrefix: string;
}

const secondsUntil = (result: RateLimiterRes) => Math.max(1, Math.ceil(result.msBeforeNext / 1000));

/**
 * A quota counted by rate-limiter-flexible, in this process or in Redis when several instances
 * must share the count (in this process again while Redis is away). Undefined when the limit is 0 (off).
 */
export const createQuota = ({ name, perMinute, redis, keyPrefix }: QuotaOptions): Quota | undefined => {
  if (perMinute === 0) return undefined;
  const options = { points: perMinute, duration: QUOTA_WINDOW_SECONDS, keyPrefix };
  // When Redis fails or is away, rate-limiter-flexible asks the insurance limiter instead: this
  // instance's own count, so requests are still served and still limited.
  const limiter = redis
    ? new RateLimiterRedis({ ...options, storeClient: redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(options) })
    : new RateLimiterMemory(options);
  const policy = `"${name}";q=${perMinute};w=${QUOTA_WINDOW_SECONDS}`;
  const remaining = (result: RateLimiterRes) => `"${name}";r=${Math.max(0, result.remainingPoints)};t=${secondsUntil(result)}`;
  return {
    spend: async (subject, points) => {
      try {
        const result = await limiter.consume(subject, points);
        return { allowed: true, headers: ['RateLimit-Policy', policy, 'RateLimit', remaining(result)] };
      } catch (refusal) {
        // rate-limiter-flexible rejects with the counter's state when the quota is spent.
        if (!(refusal instanceof RateLimiterRes)) throw refusal;
        const retryAfterSeconds = secondsUntil(refusal);
        return {
          allowed: false,
          retryAfterSeconds,
          headers: ['RateLimit-Policy', policy, 'RateLimit', remaining(refusal), 'Retry-After', retryAfterSeconds],
        };
      }
    },
    giveBack: async (subject, points) => ['RateLimit-Policy', policy, 'RateLimit', remaining(await limiter.reward(subject, points))],
  };
};
