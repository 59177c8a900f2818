import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

const WINDOW_SECONDS = 60;
const POLICY_NAME = 'per-key';

export interface QuotaDecision {
  allowed: boolean;
  /** `RateLimit` and `RateLimit-Policy` (IETF httpapi draft), plus `Retry-After` when refused. */
  headers: Record<string, string>;
}

export type Quota = (keyId: number) => Promise<QuotaDecision>;

const secondsUntil = (result: RateLimiterRes) => Math.max(1, Math.ceil(result.msBeforeNext / 1000));

/**
 * Requests per API key per minute, counted by rate-limiter-flexible: in this process, or in Redis
 * when several instances must share the count. Undefined when the limit is 0 (off).
 */
export const createQuota = (perMinute: number, redis?: Redis, keyPrefix = 'petstore:rate'): Quota | undefined => {
  if (perMinute === 0) return undefined;
  const options = { points: perMinute, duration: WINDOW_SECONDS, keyPrefix };
  const limiter = redis ? new RateLimiterRedis({ ...options, storeClient: redis }) : new RateLimiterMemory(options);
  const policy = `"${POLICY_NAME}";q=${perMinute};w=${WINDOW_SECONDS}`;
  const headersFor = (result: RateLimiterRes) => ({
    'RateLimit-Policy': policy,
    RateLimit: `"${POLICY_NAME}";r=${Math.max(0, result.remainingPoints)};t=${secondsUntil(result)}`,
  });
  return async (keyId) => {
    try {
      return { allowed: true, headers: headersFor(await limiter.consume(String(keyId))) };
    } catch (refusal) {
      // rate-limiter-flexible rejects with the counter's state when the quota is spent.
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      return { allowed: false, headers: { ...headersFor(refusal), 'Retry-After': String(secondsUntil(refusal)) } };
    }
  };
};

export const tooManyRequestsMessage = (decision: QuotaDecision) =>
  `Too many requests for this API key; try again in ${decision.headers['Retry-After'] ?? 'a few'} seconds.`;
