import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { Database } from './storage/database.js';
import type { ApiKeyPrincipal } from './keys/api-keys.js';
import type { ApiKeyScope } from './keys/scopes.js';
import { toTrpcErrorShape } from './errors/trpc-error-shape.js';

// tRPC's setup, one instance for the whole router. The operations built on it are in
// `operation/` (what one is, and how the transports call it); the envelope it formats errors
// into is in `errors/`.

// ---- The context: what every procedure is handed ----

export interface Context {
  db: Database;
  /** The key that authenticated the request; null when none or an invalid one was sent. */
  principal: ApiKeyPrincipal | null;
  /** The request's `Idempotency-Key` header, when the transport has one. */
  idempotencyKey?: string | undefined;
  /** Aborted when the client has gone before its answer: work not yet started is then not started. */
  signal?: AbortSignal | undefined;
}

/** The context once a key is known: every procedure runs with one. */
export type AuthedContext = Context & { principal: ApiKeyPrincipal };

// ---- The meta: what every procedure declares ----

export interface Deprecation {
  /** When the operation was deprecated (the `Deprecation` header). */
  since: Date;
  /** When it will be removed (the `Sunset` header). */
  sunset: Date;
  /** The procedure to use instead (the `Link: rel="successor-version"` header). */
  successor: string;
}

export type ProcedureMeta = OpenApiMeta<{
  /**
   * What a key needs to call the procedure: the one place it is declared. Checked after the key
   * and before the input (403 otherwise); the OpenAPI document shows it.
   */
  scope: ApiKeyScope;
  /** The HTTP status of a successful REST response, 200 unless stated. */
  successStatus?: 201;
  deprecation?: Deprecation;
  /**
   * The result is a page, `{ items, nextCursor }`, the shape tRPC's infinite queries read. REST
   * answers with the items alone and puts the next page's address in a `Link: rel="next"` header.
   */
  paginated?: true;
}>;

// ---- The instance ----

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    // Stack traces never leave the process, whatever the environment says it is.
    isDev: false,
    // tRPC's envelope, carrying the same code and status a REST client reads from the Error body.
    errorFormatter: ({ error }) => toTrpcErrorShape(error),
  });

// ---- What the rest of core builds with ----

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
/** The bare procedure: `operation/define-operation.ts` puts the key and scope check on it. */
export const procedure = t.procedure;
