import { TRPCError, initTRPC } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import type { Database } from './storage/database.js';
import { toTrpcError } from './storage/storage-unavailable.js';
import type { ApiKeyPrincipal } from './keys/api-keys.js';
import type { ApiKeyScope } from './keys/scopes.js';
import { toErrorBody } from './error-body.js';

export interface Context {
  db: Database;
  /** The key that authenticated the request; null when none or an invalid one was sent. */
  principal: ApiKeyPrincipal | null;
  /** The request's `Idempotency-Key` header, when the transport has one. */
  idempotencyKey?: string | undefined;
  /** Aborted when the client has gone before its answer: work not yet started is then not started. */
  signal?: AbortSignal | undefined;
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

/**
 * The same error in tRPC's envelope (a JSON-RPC code, the message, and `data` carrying the Error
 * body's code and status), for the router's error formatter and the tRPC transport alike.
 */
export const toTrpcErrorShape = (error: TRPCError) => {
  const body = toErrorBody(error);
  return {
    message: body.message,
    code: TRPC_ERROR_CODES_BY_KEY[error.code],
    data: { code: body.code, httpStatus: body.status },
  };
};
export type TrpcErrorShape = ReturnType<typeof toTrpcErrorShape>;

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    // Stack traces never leave the process, whatever the environment says it is.
    isDev: false,
    // tRPC's envelope, carrying the same code and status a REST client reads from the Error body.
    errorFormatter: ({ error }) => toTrpcErrorShape(error),
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** The context once a key is known: every procedure runs with one. */
export type AuthedContext = Context & { principal: ApiKeyPrincipal };

/**
 * The refusal of a key that lacks the scope a procedure needs, or undefined when it has it. A
 * procedure that declares no scope is refused to every key: no procedure is open by omission.
 */
export const insufficientScope = (principal: ApiKeyPrincipal, scope: ApiKeyScope | undefined): TRPCError | undefined =>
  scope !== undefined && principal.scopes.includes(scope)
    ? undefined
    : new TRPCError({ code: 'FORBIDDEN', message: `This API key lacks the ${scope ?? 'required'} scope.` });

const unauthorized = () =>
  new TRPCError({ code: 'UNAUTHORIZED', message: 'A valid API key is required: send "Authorization: Bearer <API_KEY>".' });

/**
 * The one check of who may call a procedure, before its input is looked at: a key (401), and the
 * procedure's scope (403). The transports call it before they read a call's body, and
 * `callOperation` before it runs one; the router's procedures, which serve only tRPC's own adapter
 * (the reference the wire test compares `/trpc` with) and the typed client's types, run it as
 * `authedProcedure`'s middleware.
 */
export const authorize = (ctx: Context, scope: ApiKeyScope | undefined): AuthedContext => {
  if (!ctx.principal) throw unauthorized();
  const refusal = insufficientScope(ctx.principal, scope);
  if (refusal) throw refusal;
  return ctx as AuthedContext;
};

/** Past this middleware `ctx.principal` is known and holds the procedure's scope. */
export const authedProcedure = t.procedure.use(({ ctx, meta, next }) => next({ ctx: authorize(ctx, meta?.scope) }));

/**
 * One operation of the interface: who may call it and how REST shows it (`meta`), its input, the
 * component its result is (`output`), and what it does (`resolve`). Its tRPC procedure is built
 * from these; the service's transports run the same pieces through `callOperation`.
 */
export interface OperationDefinition<Input extends z.ZodType, Result> {
  meta: ProcedureMeta;
  input: Input;
  /** The result's schema, a named component (`.meta({ id })`): its type and its place in the document. */
  output: z.ZodType<Result>;
  resolve(this: void, opts: { ctx: AuthedContext; input: z.output<Input> }): Promise<Result>;
}

/**
 * The result schema tRPC is given: the component's type, described by reference. tRPC would check
 * every result against a real schema; results come from our own storage, which only holds input
 * that passed validation, so this one accepts them as they are rather than walking every animal
 * of every page again.
 */
export const resultOf = <T>(schema: z.ZodType<T>) => {
  const id = schema.meta()?.id;
  if (typeof id !== 'string') throw new Error('a result schema needs a component id (.meta({ id }))');
  return z.custom<T>().meta({ override: { $ref: `#/components/schemas/${id}` } });
};

const withRoute = <Input extends z.ZodType, Result>(definition: OperationDefinition<Input, Result>) =>
  authedProcedure.meta(definition.meta).input(definition.input).output(resultOf(definition.output));

/**
 * The resolver as the router's procedure runs it under tRPC's own adapter: a store error it meets
 * is the TRPCError its answer shows (503 for an unavailable database), as the transports render it.
 */
const asProcedure =
  <Input extends z.ZodType, Result>({ resolve }: OperationDefinition<Input, Result>) =>
  // tRPC types the input it hands over through the parser, which it cannot work out for a generic
  // schema; the schema is the definition's own.
  ({ ctx, input }: { ctx: AuthedContext; input: unknown }) =>
    resolve({ ctx, input: input as z.output<Input> }).catch((cause: unknown) => {
      throw toTrpcError(cause);
    }) as never;

/** A read: its procedure answers GET on both transports. */
export const defineQuery = <Input extends z.ZodType, Result>(definition: OperationDefinition<Input, Result>) => ({
  ...definition,
  type: 'query' as const,
  procedure: withRoute(definition).query(asProcedure(definition)),
  compiledInput: z.compile(definition.input),
});

/** A change: its procedure answers POST on both transports. */
export const defineMutation = <Input extends z.ZodType, Result>(definition: OperationDefinition<Input, Result>) => ({
  ...definition,
  type: 'mutation' as const,
  procedure: withRoute(definition).mutation(asProcedure(definition)),
  compiledInput: z.compile(definition.input),
});

/** Any operation, as the transports see it. */
export interface Operation {
  type: 'query' | 'mutation';
  meta: ProcedureMeta;
  input: z.ZodType;
  /**
   * `input` as the transports run it: zod's own compiled parser for that schema (`z.compile`), which
   * accepts, refuses and transforms exactly as the schema does; a refusal is worked out again by the
   * schema itself, so its issues are the schema's own. The generic parser keeps per-call bookkeeping
   * (WeakMaps for cyclic inputs) that outlived requests waiting on PostgreSQL (docs/decisions).
   */
  compiledInput: z.ZodType;
  output: z.ZodType;
  // A method, so that an operation with a narrower input is still an Operation.
  resolve(this: void, opts: { ctx: AuthedContext; input: unknown }): Promise<unknown>;
}

/**
 * Runs an operation as its tRPC procedure would: the caller's key and scope (`authorize`: 401,
 * 403), the input checked by the operation's schema (400 when invalid), then the resolver, handed
 * the request as a promise reaction: the request goes on to the resolver and does not come back
 * through here. tRPC's middleware chain does the same with an object spread per level; the
 * transports call this instead (docs/decisions has the measurement).
 */
export const callOperation = (operation: Operation, ctx: Context, input: unknown): Promise<unknown> => {
  const refusal = ctx.principal ? insufficientScope(ctx.principal, operation.meta.scope) : unauthorized();
  if (refusal) return Promise.reject(refusal);
  const authed = ctx as AuthedContext;
  const parsed = operation.compiledInput.safeParse(input);
  if (!parsed.success) return Promise.reject(new TRPCError({ code: 'BAD_REQUEST', cause: parsed.error }));
  return Promise.resolve({ ctx: authed, input: parsed.data }).then(operation.resolve);
};

const REPLAYED = Symbol('replayed');

/**
 * Marks a result as given again for a retried request (an `Idempotency-Key` seen before). The mark
 * is part of the value, so a transport reads it from the result; it is a non-enumerable symbol,
 * so no wire format serialises it and no copy or comparison sees it (a Pet has exactly its four
 * fields).
 */
export const markReplayed = <T extends object>(result: T): T => Object.defineProperty(result, REPLAYED, { value: true });

export const isReplayed = (result: unknown): boolean =>
  typeof result === 'object' && result !== null && REPLAYED in result;
