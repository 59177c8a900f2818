import type { IncomingMessage } from 'node:http';
import type { ApiKeyPrincipal, ApiKeys, Context, Database } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { FlatHeaders } from '../exchange/exchange.js';
import type { Quota, QuotaDecision } from './quota.js';

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

/** A request let in: the procedures' context, and the RateLimit headers of what it spent. */
export interface Admitted {
  admitted: true;
  ctx: Context;
  headers: FlatHeaders;
}

export interface Refused {
  admitted: false;
  error: TRPCError;
  headers: FlatHeaders;
}

export type Admission = Admitted | Refused;

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

const throttled = ({ headers, retryAfterSeconds }: QuotaDecision): Refused => ({
  admitted: false,
  error: tooMany('Too many failed authentications from this address', retryAfterSeconds),
  headers,
});

/**
 * The one step every request to a procedure passes, on either transport, in the contract's order:
 * the key first (401 with its challenge, before anything about the request is looked at), failed
 * attempts throttled per client address so guessing keys costs time (an address past its
 * throttle is refused before the key it sends is looked up, unless this instance knows the key
 * good: a valid key is not refused for what others sent), then the key's quota (each call of a tRPC batch counts), then the
 * procedures' context, with the `Idempotency-Key`. What a key may do (its scopes) is each
 * operation's own check (`authorize` in core).
 */
export const createAdmission = ({ db, apiKeys, keyQuota, failedAuthQuota, clientAddress }: AdmissionDependencies) => {
  const refuseKey = async (address: string, authorization: string | undefined): Promise<Refused> => {
    const throttle = failedAuthQuota && (await failedAuthQuota.spend(address, 1));
    if (throttle && !throttle.allowed) return throttled(throttle);
    const message = authorization === undefined ? 'Missing API key: send "Authorization: Bearer <API_KEY>".' : 'Invalid API key.';
    const headers: FlatHeaders = ['WWW-Authenticate', BEARER_CHALLENGE, ...(throttle ? throttle.headers : NO_HEADERS)];
    return { admitted: false, error: new TRPCError({ code: 'UNAUTHORIZED', message }), headers };
  };

  const admitted = (req: IncomingMessage, principal: ApiKeyPrincipal, { allowed, headers, retryAfterSeconds }: QuotaDecision): Admission => {
    if (!allowed) return { admitted: false, error: tooMany('Too many requests for this API key', retryAfterSeconds), headers };
    const idempotencyKey = req.headers['idempotency-key'];
    return {
      admitted: true,
      ctx: { db, principal, idempotencyKey: Array.isArray(idempotencyKey) ? idempotencyKey.join(', ') : idempotencyKey },
      headers,
    };
  };

  /** Admits `req`, whose `calls` (one on REST, each of a tRPC batch) each spend one request of the key's quota. */
  return async (req: IncomingMessage, calls: number): Promise<Admission> => {
    const { authorization } = req.headers;
    const token = bearerToken(authorization);
    let address: string | undefined;
    if (failedAuthQuota && (token === undefined || !apiKeys.knows(token))) {
      address = clientAddress(req);
      const throttle = failedAuthQuota.peek(address);
      if (!throttle.allowed) return throttled(throttle);
    }
    const principal = token === undefined ? null : await apiKeys.authenticate(token);
    if (!principal) return refuseKey(address ?? clientAddress(req), authorization);
    if (!keyQuota) return admitted(req, principal, { allowed: true, headers: NO_HEADERS });
    return admitted(req, principal, await keyQuota.spend(String(principal.keyId), calls));
  };
};

export type Admit = ReturnType<typeof createAdmission>;
