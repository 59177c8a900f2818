import type { IncomingMessage } from 'node:http';
import { type ApiKeyPrincipal, type ApiKeys, type Context, type Database, andThen } from '@petstore/core';
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

/** What a request costs when keys have no quota: nothing to count, no RateLimit headers. */
const UNCOUNTED: QuotaDecision = { allowed: true, headers: NO_HEADERS };

const tooMany = (what: string, seconds: number | undefined) =>
  new TRPCError({ code: 'TOO_MANY_REQUESTS', message: `${what}; try again in ${seconds ?? 'a few'} seconds.` });

/**
 * The one step every request to a procedure passes, on either transport, in the contract's order:
 * the key first (401 with its challenge, before anything about the request is looked at), failed
 * attempts throttled per client address so guessing keys costs time, then the key's quota (each
 * call of a tRPC batch counts), then the procedures' context, with the `Idempotency-Key`. What a
 * key may do (its scopes) is the procedures' own check (`authorize` in core).
 *
 * A key the instance holds, with a quota it counts alone, is admitted at once, not as a promise:
 * the common request takes no turn of the event loop before its operation (docs/decisions). A
 * key read from storage, a quota asked of Redis or a refusal answers as a promise.
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

  const withQuota = (req: IncomingMessage, principal: ApiKeyPrincipal, { allowed, headers, retryAfterSeconds }: QuotaDecision): Admission => {
    if (!allowed) return { admitted: false, error: tooMany('Too many requests for this API key', retryAfterSeconds), headers };
    const idempotencyKey = req.headers['idempotency-key'];
    const ctx: Context = {
      db,
      principal,
      idempotencyKey: Array.isArray(idempotencyKey) ? idempotencyKey.join(', ') : idempotencyKey,
    };
    return { admitted: true, ctx, headers };
  };

  const spend = (req: IncomingMessage, authorization: string | undefined, principal: ApiKeyPrincipal | null, calls: number) => {
    if (!principal) return refuseKey(req, authorization);
    if (!keyQuota) return withQuota(req, principal, UNCOUNTED);
    return andThen(keyQuota.spend(String(principal.keyId), calls), (decision) => withQuota(req, principal, decision));
  };

  const admit = (req: IncomingMessage, calls: number): Admission | Promise<Admission> => {
    const { authorization } = req.headers;
    const token = bearerToken(authorization);
    if (token === undefined) return refuseKey(req, authorization);
    const held = apiKeys.heldPrincipal(token);
    if (held !== undefined) return spend(req, authorization, held, calls);
    return apiKeys.authenticate(token).then((principal) => spend(req, authorization, principal, calls));
  };

  /**
   * What an admitted request turned out not to cost: a 304 does not spend the key's quota (a
   * client revalidating its cache is not asking for anything new). Returns the RateLimit headers as
   * they now stand, or the admission's own when there is no quota.
   */
  const refund = (ctx: Context, calls: number, headers: FlatHeaders): FlatHeaders =>
    keyQuota && ctx.principal ? keyQuota.giveBack(String(ctx.principal.keyId), calls) : headers;

  return Object.assign(admit, { refund });
};

export type Admit = ReturnType<typeof createAdmission>;
