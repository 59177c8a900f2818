import type { IncomingMessage } from 'node:http';
import { type ApiKeyPrincipal, type Context, type Database, NOT_LOOKED_UP } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { RequestContext, FlatHeaders } from '../http/request-context.js';
import type { Reply, Handler } from '../http/reply.js';
import type { Authentication } from './authenticate.js';
import type { Quota, QuotaDecision } from './quota.js';

/** The RFC 6750 challenge every 401 carries. */
export const BEARER_CHALLENGE = 'Bearer realm="petstore"';

/** The RFC 6750 §3.1 challenge of a 403: the key is good, but lacks `scope`. */
export const insufficientScopeChallenge = (scope: string) => `${BEARER_CHALLENGE}, error="insufficient_scope", scope="${scope}"`;

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

/** `next` of a decision made now, or of one still coming from Redis. */
const onceDecided = <T>(decision: QuotaDecision | Promise<QuotaDecision>, next: (decision: QuotaDecision) => T): T | Promise<T> =>
  decision instanceof Promise ? decision.then(next) : next(decision);

/**
 * The second step of admission, after the key store answered (authenticate.ts), in the contract's
 * order: no valid key is a 401 with its challenge, each one counted against the client address's
 * failed-authentication throttle (429 past it); then the key's quota (429; each call of a tRPC
 * batch counts); then the procedures' context, with the `Idempotency-Key`. What a key may do (its
 * scopes) is each operation's own check (`authorize` in core).
 */
export const createAdmission = ({ db, keyQuota, failedAuthQuota, clientAddress }: AdmissionDependencies) => {
  const refuseKey = (req: IncomingMessage, throttle: QuotaDecision | undefined): Refused => {
    if (throttle && !throttle.allowed) return throttled(throttle);
    const message = req.headers.authorization === undefined ? 'Missing API key: send "Authorization: Bearer <API_KEY>".' : 'Invalid API key.';
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
  return (req: IncomingMessage, calls: number, authentication: Authentication): Admission | Promise<Admission> => {
    if (authentication === NOT_LOOKED_UP) return throttled(failedAuthQuota?.peek(clientAddress(req)) ?? { allowed: false, headers: NO_HEADERS });
    if (authentication === null) {
      if (!failedAuthQuota) return refuseKey(req, undefined);
      return onceDecided(failedAuthQuota.spend(clientAddress(req), 1), (throttle) => refuseKey(req, throttle));
    }
    if (!keyQuota) return admitted(req, authentication, { allowed: true, headers: NO_HEADERS });
    return onceDecided(keyQuota.spend(String(authentication.keyId), calls), (decision) => admitted(req, authentication, decision));
  };
};

export type Admit = ReturnType<typeof createAdmission>;

/** A request as its transport read it before admission: how many requests of the key's quota it spends. */
export interface Admissible {
  /** One on REST; each call of a tRPC batch. */
  readonly quotaCost: number;
}

/**
 * An API transport as the front door's one lifecycle runs it (front-door.ts): its read first,
 * then admission, the same for both transports, then its answer to what admission said.
 */
export interface Transport<Request extends Admissible> {
  /**
   * The request as the transport read it, or the reply to one answered before admission (REST's
   * document, a request tRPC's adapter refuses whole before it makes a context).
   */
  read(context: RequestContext): Request | Promise<Reply>;
  /** Its answer, once admission let it in or refused it. */
  answer(request: Request, admission: Admission): Reply | Promise<Reply>;
  refuse: Handler['refuse'];
}
