import { TRPCError } from '@trpc/server';
import type { ApiKeyPrincipal } from '../keys/api-keys.js';
import type { ApiKeyScope } from '../keys/scopes.js';
import type { AuthedContext, Context } from '../trpc.js';
import type { Operation } from './operation.js';

// What a request runs in core: who may call, the call, and what a result carries back.

// ---- Who may call ----

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

// ---- The call ----

/**
 * Runs an operation as its tRPC procedure would: the caller's key and scope (`authorize`: 401,
 * 403), the input checked by the operation's schema (400 when invalid), then the resolver, handed
 * the request as a promise reaction: the request goes on to the resolver and does not come back
 * through here. tRPC's middleware chain does the same with an object spread per level; the
 * transports call this instead (docs/decisions/2026-11-23-operations-called-without-trpcs-middleware-chain.md).
 */
export const callOperation = (operation: Operation, ctx: Context, input: unknown): Promise<unknown> => {
  const refusal = ctx.principal ? insufficientScope(ctx.principal, operation.meta.scope) : unauthorized();
  if (refusal) return Promise.reject(refusal);
  const authed = ctx as AuthedContext;
  const parsed = operation.compiledInput.safeParse(input);
  if (!parsed.success) return Promise.reject(new TRPCError({ code: 'BAD_REQUEST', cause: parsed.error }));
  return Promise.resolve({ ctx: authed, input: parsed.data }).then(operation.resolve);
};

// ---- What a result carries back ----

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
