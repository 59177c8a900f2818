import { TRPCError, initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import type { Database } from './db/database.js';
import type { ApiKeyPrincipal } from './keys/api-keys.js';
import { toErrorBody } from './schemas/error.js';
import type { ListPetsQuery } from './schemas/list-pets.js';

/** How the transport answers: REST (`/v1`, the Error body) or tRPC (`/trpc`, its own envelope). */
export type Transport = 'rest' | 'trpc';

/** What a procedure tells its transport beside its result. */
export interface ResponseNotes {
  /** The query of the page after this one, when at least one more animal follows. */
  nextPage?: ListPetsQuery;
}

export interface Context {
  db: Database;
  /** The key that authenticated the request; null when none or an invalid one was sent. */
  principal: ApiKeyPrincipal | null;
  transport: Transport;
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
}>;

const MAX_REPORTED_ISSUES = 5;
const MAX_ISSUE_LENGTH = 200;

/** zod's issues as one sentence a person can act on, e.g. `limit: Too big: expected number to be <=100`. */
const describeIssues = (error: z.ZodError): string => {
  const described = error.issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => {
    const text = issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
    return text.length > MAX_ISSUE_LENGTH ? `${text.slice(0, MAX_ISSUE_LENGTH)}…` : text;
  });
  const more = error.issues.length - described.length;
  return described.join('; ') + (more > 0 ? `; and ${more} more` : '');
};

const t = initTRPC
  .context<Context>()
  .meta<ProcedureMeta>()
  .create({
    // Stack traces never leave the process, whatever NODE_ENV says.
    isDev: false,
    errorFormatter: ({ shape, error, ctx }) => {
      const body = toErrorBody(error);
      if (ctx?.transport === 'rest') return body;
      return { ...shape, message: body.message, data: { code: body.code, httpStatus: body.status } };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

const requireApiKey = t.middleware(({ ctx, next }) => {
  if (!ctx.principal) {
    throw new TRPCError({
      code: 'UNAUTHORIZED',
      message: 'A valid API key is required: send "Authorization: Bearer <API_KEY>".',
    });
  }
  return next({ ctx: { principal: ctx.principal } });
});

/**
 * Wraps input validation (added later by `.input()`), turning zod's error into a readable message.
 * Left alone, the OpenAPI adapter would answer every validation failure with the same words,
 * "Input validation failed", and an `issues` array the Error body does not have.
 */
const readableInputErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.code === 'BAD_REQUEST' && result.error.cause instanceof z.ZodError) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: describeIssues(result.error.cause) });
  }
  return result;
});

/** Every operation of the interface requires an API key, checked before its input. */
export const authedProcedure = t.procedure.use(requireApiKey).use(readableInputErrors);
