import type { IncomingMessage } from 'node:http';
import type { ApiKeys, Context, Database } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { FlatHeaders } from '../exchange/exchange.js';

/** The RFC 6750 challenge every 401 carries. */
export const BEARER_CHALLENGE = 'Bearer realm="petstore"';

/** The RFC 6750 §3.1 challenge of a 403: the key is good, but lacks `scope`. */
export const insufficientScopeChallenge = (scope: string) => `${BEARER_CHALLENGE}, error="insufficient_scope", scope="${scope}"`;

/**
 * The token of an `Authorization: Bearer <token>` header. The scheme name is case-insensitive
 * (RFC 9110); the token is taken exactly as sent, so a key with anything added or missing fails.
 */
export const bearerToken = (authorization: string | undefined): string | undefined =>
  /^Bearer +(\S+)$/i.exec(authorization ?? '')?.[1];

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

export type Admission =
  | { admitted: true; ctx: Context; headers: FlatHeaders }
  | { admitted: false; error: TRPCError; headers: FlatHeaders };

export interface AdmissionDependencies {
  db: Database;
  apiKeys: ApiKeys;
  /** Requests per API key; undefined when off. */
  keyQuota: Quota | undefined;
  /** Failed authentications per client address; undefined when off. */
  failedAuthQuota: Quota | undefined;
  clientAddress: (req: IncomingMessage) => string;
}

const NO_HEADERS: FlatHeaders = [];

const tooMany = (what: string, seconds: number | undefined) =>
  new TRPCError({ code: 'TOO_MANY_REQUESTS', message: `${what}; try again in ${seconds ?? 'a few'} seconds.` });

/**
 * The one step every request to a procedure passes, on either transport, in the contract's order:
 * the key first (401 with its challenge, before anything about the request is looked at), failed
 * attempts throttled per client address so guessing keys costs time, then the key's quota (each
 * call of a tRPC batch counts), then the procedures' context, with the `Idempotency-Key`. What a
 * key may do (its scopes) is the procedures' own check (`authorize` in core).
 */
export const createAdmission = ({ db, apiKeys, keyQuota, failedAuthQuota, clientAddress }: AdmissionDependencies) => {
  const refuseKey = async (req: IncomingMessage, authorization: string | undefined): Promise<Admission> => {
    const throttle = failedAuthQuota && (await failedAuthQuota.spend(clientAddress(req), 1));
    if (throttle && !throttle.allowed) {
      return { admitted: false, error: tooMany('Too many failed authentications from this address', throttle.retryAfterSeconds), headers: throttle.headers };
    }
    const message = authorization === undefined ? 'Missing API key: send "Authorization: Bearer <API_KEY>".' : 'Invalid API key.';
    const headers: FlatHeaders = ['WWW-Authenticate', BEARER_CHALLENGE, ...(throttle ? throttle.headers : NO_HEADERS)];
    return { admitted: false, error: new TRPCError({ code: 'UNAUTHORIZED', message }), headers };
  };

  const admit = async (req: IncomingMessage, calls: number): Promise<Admission> => {
    const { authorization } = req.headers;
    const token = bearerToken(authorization);
    const principal = token === undefined ? null : await apiKeys.authenticate(token);
    if (!principal) return refuseKey(req, authorization);

    let headers = NO_HEADERS;
    if (keyQuota) {
      const decision = await keyQuota.spend(String(principal.keyId), calls);
      if (!decision.allowed) {
        return { admitted: false, error: tooMany('Too many requests for this API key', decision.retryAfterSeconds), headers: decision.headers };
      }
      headers = decision.headers;
    }
    const idempotencyKey = req.headers['idempotency-key'];
    const ctx: Context = {
      db,
      principal,
      idempotencyKey: Array.isArray(idempotencyKey) ? idempotencyKey.join(', ') : idempotencyKey,
    };
    return { admitted: true, ctx, headers };
  };

  /**
   * What an admitted request turned out not to cost: a 304 does not spend the key's quota (a
   * client revalidating its cache is not asking for anything new). Returns the RateLimit headers as
   * they now stand, or the admission's own when there is no quota.
   */
  const refund = async (ctx: Context, calls: number, headers: FlatHeaders): Promise<FlatHeaders> =>
    keyQuota && ctx.principal ? keyQuota.giveBack(String(ctx.principal.keyId), calls) : headers;

  return Object.assign(admit, { refund });
};

export type Admit = ReturnType<typeof createAdmission>;
