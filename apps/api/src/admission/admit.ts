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

/** A request let in: the procedures' context, the RateLimit headers of what it spent, and how to give that back. */
export interface Admitted {
  admitted: true;
  ctx: Context;
  headers: FlatHeaders;
  /** Gives back what the request spent (a 304 costs nothing); the RateLimit headers as they now stand. */
  giveBack(): FlatHeaders;
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

/**
 * The one step every request to a procedure passes, on either transport, in the contract's order:
 * the key first (401 with its challenge, before anything about the request is looked at), failed
 * attempts throttled per client address so guessing keys costs time, then the key's quota (each
 * call of a tRPC batch counts), then the procedures' context, with the `Idempotency-Key`. What a
 * key may do (its scopes) is each operation's own check (`authorize` in core).
 */
export const createAdmission = ({ db, apiKeys, keyQuota, failedAuthQuota, clientAddress }: AdmissionDependencies) => {
  const refuseKey = async (req: IncomingMessage, authorization: string | undefined): Promise<Refused> => {
    const throttle = failedAuthQuota && (await failedAuthQuota.spend(clientAddress(req), 1));
    if (throttle && !throttle.allowed) {
      return { admitted: false, error: tooMany('Too many failed authentications from this address', throttle.retryAfterSeconds), headers: throttle.headers };
    }
    const message = authorization === undefined ? 'Missing API key: send "Authorization: Bearer <API_KEY>".' : 'Invalid API key.';
    const headers: FlatHeaders = ['WWW-Authenticate', BEARER_CHALLENGE, ...(throttle ? throttle.headers : NO_HEADERS)];
    return { admitted: false, error: new TRPCError({ code: 'UNAUTHORIZED', message }), headers };
  };

  const admitted = (req: IncomingMessage, principal: ApiKeyPrincipal, calls: number, { allowed, headers, retryAfterSeconds }: QuotaDecision): Admission => {
    if (!allowed) return { admitted: false, error: tooMany('Too many requests for this API key', retryAfterSeconds), headers };
    const idempotencyKey = req.headers['idempotency-key'];
    return {
      admitted: true,
      ctx: { db, principal, idempotencyKey: Array.isArray(idempotencyKey) ? idempotencyKey.join(', ') : idempotencyKey },
      headers,
      giveBack: keyQuota ? () => keyQuota.giveBack(String(principal.keyId), calls) : () => headers,
    };
  };

  /** Admits `req`, whose `calls` (one on REST, each of a tRPC batch) each spend one request of the key's quota. */
  return async (req: IncomingMessage, calls: number): Promise<Admission> => {
    const { authorization } = req.headers;
    const token = bearerToken(authorization);
    const principal = token === undefined ? null : await apiKeys.authenticate(token);
    if (!principal) return refuseKey(req, authorization);
    if (!keyQuota) return admitted(req, principal, calls, { allowed: true, headers: NO_HEADERS });
    return admitted(req, principal, calls, await keyQuota.spend(String(principal.keyId), calls));
  };
};

export type Admit = ReturnType<typeof createAdmission>;
