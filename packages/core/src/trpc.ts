import { TRPCError, initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import type { Database } from './db/database.js';
import type { ApiKeyPrincipal } from './keys/api-keys.js';
import { toTrpcErrorShape } from './schemas/error.js';

/** What a procedure tells its transport beside its result. */
export interface ResponseNotes {
  /** The result is the one an earlier request with the same idempotency key produced. */
  replayed?: boolean;
}

export interface Context {
  db: Database;
  /** The key that authenticated the request; null when none or an invalid one was sent. */
  principal: ApiKeyPrincipal | null;
  /** The request's `Idempotency-Key` header, when the transport has one. */
  idempotencyKey?: string | undefined;
  response: ResponseNotes;
}

export interface Deprecation {
  /** When the operation was deprecated (the `Deprecation` header). */
  since: Date;
  /** When it will be removed (the `Sunset` header). */
  sunset: Date;
  /** The procedure to use instead (the `Link: rel="successor-version"` header). */
  successor: string;
}

export type ProcedureMeta = OpenApiMeta<{
  /** The HTTP status of a successful REST response, 200 unless stated. */
  successStatus?: 201;
  deprecation?: Deprecation;
  /**
   * The result is a page, `{ items, nextCursor }`, the shape tRPC's infinite queries read. REST
   * answers with the items alone and puts the next page's address in a `Link: rel="next"` header.
   */
  paginated?: true;
}>;

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    // Stack traces never leave the process, whatever NODE_ENV says.
    isDev: false,
    // tRPC's envelope, carrying the same code and status a REST client reads from the Error body.
    errorFormatter: ({ error }) => toTrpcErrorShape(error),
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Every operation of the interface requires an API key, checked before its input (validation
 * comes later, with `.input()`). Past this point `ctx.principal` is known not to be null.
 */
export const authedProcedure = t.procedure.use(({ ctx, next }) => {
  const { principal } = ctx;
  if (!principal) {
    throw new TRPCError({
      code: 'UNAUTHORIZED',
      message: 'A valid API key is required: send "Authorization: Bearer <API_KEY>".',
    });
  }
  return next({ ctx: { principal } });
});

/**
 * A procedure's result schema, for its type and for the OpenAPI document, which shows the named
 * component `schema` registers. tRPC would check every result against the schema it is given;
 * results come from our own storage, which only holds input that passed validation, so this one
 * accepts them as they are rather than walking every animal of every page again.
 */
export const resultOf = <T extends z.ZodType>(schema: T) => {
  const id = schema.meta()?.id;
  if (typeof id !== 'string') throw new Error('a result schema needs a component id (.meta({ id }))');
  return z.custom<z.output<T>>().meta({ override: { $ref: `#/components/schemas/${id}` } });
};
