import { TRPCError, initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import type { Database } from './db/database.js';
import type { ApiKeyPrincipal } from './keys/api-keys.js';
import type { ApiKeyScope } from './keys/scopes.js';
import { toTrpcError } from './db/storage-unavailable.js';
import { toTrpcErrorShape } from './error-body.js';

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

/** The context once a key is known: every procedure runs with one. */
export type AuthedContext = Context & { principal: ApiKeyPrincipal };

/** Every operation of the interface requires an API key, checked before its input. */
const requirePrincipal = (ctx: Context): AuthedContext => {
  if (!ctx.principal) {
    throw new TRPCError({
      code: 'UNAUTHORIZED',
      message: 'A valid API key is required: send "Authorization: Bearer <API_KEY>".',
    });
  }
  return ctx as AuthedContext;
};

/**
 * The refusal of a key that lacks the scope a procedure needs, or undefined when it has it. A
 * procedure that declares no scope is refused to every key: no procedure is open by omission.
 */
export const insufficientScope = (principal: ApiKeyPrincipal, scope: ApiKeyScope | undefined): TRPCError | undefined =>
  scope !== undefined && principal.scopes.includes(scope)
    ? undefined
    : new TRPCError({ code: 'FORBIDDEN', message: `This API key lacks the ${scope ?? 'required'} scope.` });

const requireScope = (ctx: AuthedContext, scope: ApiKeyScope | undefined): AuthedContext => {
  const refusal = insufficientScope(ctx.principal, scope);
  if (refusal) throw refusal;
  return ctx;
};

/**
 * Past this middleware `ctx.principal` is known not to be null and to hold the procedure's scope;
 * validation comes later, with `.input()`.
 */
export const authedProcedure = t.procedure.use(({ ctx, meta, next }) => next({ ctx: requireScope(requirePrincipal(ctx), meta?.scope) }));

/**
 * What a procedure does, apart from tRPC: its input schema and its resolver. Each procedure is
 * built from one (`.input(handler.input)` … `.query(handler.resolve)`), and the service's own
 * transports run it through `callHandler`: the same key check, validation and resolver as the
 * procedure, without tRPC's middleware chain (see DEVELOPERS.md for what that chain costs per call).
 * So a rule every call must obey belongs in `callHandler` and `authedProcedure` alike, never in a
 * middleware of one procedure: a test fails when a procedure's chain is more than key check,
 * input, output and resolver.
 */
export interface Handler<Input extends z.ZodType = z.ZodType, Output = unknown> {
  input: Input;
  resolve(this: void, opts: { ctx: AuthedContext; input: z.output<Input> }): Promise<Output>;
}

export const handler = <Input extends z.ZodType, Output>(definition: Handler<Input, Output>) => definition;

/**
 * Runs a handler as its procedure would run: 401 without a key, 403 without `scope` (the
 * procedure's meta), 400 for invalid input, 500 for a crash.
 */
export const callHandler = async (definition: Handler, ctx: Context, rawInput: unknown, scope: ApiKeyScope): Promise<unknown> => {
  const authed = requireScope(requirePrincipal(ctx), scope);
  const parsed = definition.input.safeParse(rawInput);
  if (!parsed.success) throw new TRPCError({ code: 'BAD_REQUEST', cause: parsed.error });
  try {
    return await definition.resolve({ ctx: authed, input: parsed.data });
  } catch (cause) {
    throw toTrpcError(cause);
  }
};

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
