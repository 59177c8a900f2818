import type { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { z } from 'zod';

const INTERNAL_ERROR_MESSAGE = 'The server could not handle the request.';
const MAX_REPORTED_ISSUES = 5;
const MAX_ISSUE_LENGTH = 200;
const ELLIPSIS = '…';
const ISSUE_SEPARATOR = '; ';
/** An array holds at most 2^32 - 1 elements, so no count of issues has more digits. */
const LONGEST_MORE = `${ISSUE_SEPARATOR}and ${2 ** 32 - 1} more`;

/**
 * The longest `message` an Error body carries: an invalid input's, with as many issues reported as
 * it can hold, each cut at its longest, and the count of the rest. Every other message is a fixed
 * sentence or quotes at most 200 characters of the request. Counted in UTF-16 units, so in code
 * points (what JSON Schema's `maxLength` counts) it can only be shorter.
 */
export const MAX_ERROR_MESSAGE_LENGTH =
  MAX_REPORTED_ISSUES * (MAX_ISSUE_LENGTH + ELLIPSIS.length) +
  (MAX_REPORTED_ISSUES - 1) * ISSUE_SEPARATOR.length +
  LONGEST_MORE.length;

/** The body of every error response on the REST interface. */
export const ErrorBody = z
  .strictObject({
    code: z.string().meta({
      description:
        'Machine-readable error code: a tRPC error code, such as BAD_REQUEST, UNAUTHORIZED, FORBIDDEN, ' +
        'NOT_FOUND, METHOD_NOT_SUPPORTED, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, ' +
        'TOO_MANY_REQUESTS or INTERNAL_SERVER_ERROR.',
      examples: ['NOT_FOUND'],
      // Every code a TRPCError can have, and so every code `toErrorBody` can give.
      enum: Object.keys(TRPC_ERROR_CODES_BY_KEY),
    }),
    message: z.string().meta({ description: 'Human-readable description.', maxLength: MAX_ERROR_MESSAGE_LENGTH }),
    status: z
      .int()
      .min(400)
      .max(599)
      .meta({ description: 'The HTTP status code of the response.', format: 'int32' }),
  })
  .meta({ id: 'Error', description: 'The body of every error response.' });
export type ErrorBody = z.infer<typeof ErrorBody>;

const isIntBound = (issue: z.core.$ZodIssue) =>
  (issue.code === 'too_big' || issue.code === 'too_small') && issue.origin === 'int';
const samePath = (a: z.core.$ZodIssue, b: z.core.$ZodIssue) => a.path.join('.') === b.path.join('.');

/**
 * zod's `int` carries a bound of its own, the safe-integer range, reported beside the field's own
 * bound (`limit: …<=9007199254740991; limit: …<=100`). Where the field states a bound, that is
 * the one to report.
 */
const withoutImpliedIntBounds = (issues: readonly z.core.$ZodIssue[]) =>
  issues.filter((issue) => !(isIntBound(issue) && issues.some((other) => other !== issue && other.code === issue.code && samePath(other, issue))));

/** zod's issues as one sentence a person can act on, e.g. `limit: Too big: expected number to be <=100`. */
const describeIssues = (error: z.ZodError): string => {
  const issues = withoutImpliedIntBounds(error.issues);
  const described = issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => {
    const text = issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
    return text.length > MAX_ISSUE_LENGTH ? `${text.slice(0, MAX_ISSUE_LENGTH)}${ELLIPSIS}` : text;
  });
  const more = issues.length - described.length;
  return described.join(ISSUE_SEPARATOR) + (more > 0 ? `${ISSUE_SEPARATOR}and ${more} more` : '');
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
