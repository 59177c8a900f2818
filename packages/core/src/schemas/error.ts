import type { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { z } from 'zod';

/** The body of every error response on the REST interface. */
export const ErrorBody = z
  .strictObject({
    code: z.string().meta({
      description:
        'Machine-readable error code, one of the tRPC error codes: BAD_REQUEST, UNAUTHORIZED, ' +
        'NOT_FOUND, METHOD_NOT_SUPPORTED, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, ' +
        'TOO_MANY_REQUESTS, INTERNAL_SERVER_ERROR.',
      examples: ['NOT_FOUND'],
    }),
    message: z.string().meta({ description: 'Human-readable description.' }),
    status: z.int().min(400).max(599).meta({ description: 'The HTTP status code of the response.' }),
  })
  .meta({ id: 'Error', description: 'The body of every error response.' });
export type ErrorBody = z.infer<typeof ErrorBody>;

const INTERNAL_ERROR_MESSAGE = 'The server could not handle the request.';
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

const messageOf = (error: TRPCError): string => {
  if (error.code === 'INTERNAL_SERVER_ERROR') return INTERNAL_ERROR_MESSAGE;
  // tRPC turns a failed input validation into BAD_REQUEST with zod's error as the cause.
  if (error.cause instanceof z.ZodError) return describeIssues(error.cause);
  return error.message;
};

/**
 * The Error body for any error, on either transport. Invalid input reads as one sentence rather
 * than zod's issues serialised as JSON; a crash's own message may hold internals, so it is never
 * shown.
 */
export const toErrorBody = (error: TRPCError): ErrorBody => ({
  code: error.code,
  message: messageOf(error),
  status: getHTTPStatusCodeFromError(error),
});
