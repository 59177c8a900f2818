import type { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { z } from 'zod';

const INTERNAL_ERROR_MESSAGE = 'The server could not handle the request.';
/** How many of an invalid input's issues the Error body reports: its message names them, `issues` lists them. */
const MAX_REPORTED_ISSUES = 5;
/** The longest text of one issue, before the ellipsis that marks a cut. */
const MAX_ISSUE_LENGTH = 200;
/**
 * The deepest issue path reported. Every input of the interface is a flat object, whose issues are
 * one level deep (`['limit']`) or at the input itself (`[]`), so no path is cut in practice.
 */
const MAX_ISSUE_PATH_DEPTH = 8;
/** The highest index an array can have: an array holds at most 2^32 - 1 elements. */
const MAX_ARRAY_INDEX = 2 ** 32 - 2;
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

/** One field of an invalid input and why it failed: zod's issue, its path and its message. */
export const ValidationIssue = z
  .strictObject({
    path: z
      .array(
        z.union([
          z.string().meta({ maxLength: MAX_ISSUE_LENGTH + ELLIPSIS.length }),
          z.int().min(0).max(MAX_ARRAY_INDEX).meta({ format: 'int64' }),
        ]),
      )
      .meta({
        description:
          'Where the field is in the input, as zod names it: its name (a query, path or body field), then the names or indexes ' +
          'inside it; empty for the input as a whole, such as a field the operation does not know (named in the message).',
        examples: [['categoryId']],
        maxItems: MAX_ISSUE_PATH_DEPTH,
      }),
    message: z.string().meta({ description: 'Why the field failed, in words.', maxLength: MAX_ISSUE_LENGTH + ELLIPSIS.length }),
  })
  .meta({ id: 'ValidationIssue', description: 'A field of the request that failed validation, and why.' });
export type ValidationIssue = z.infer<typeof ValidationIssue>;

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
    issues: z.array(ValidationIssue).optional().meta({
      description:
        'On a 400 for a query, path parameter or body that failed validation, and only then: each field that failed and why, ' +
        'in the order found; the first five, as the message names them.',
      maxItems: MAX_REPORTED_ISSUES,
    }),
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

/** The issues an invalid input's Error body reports, and how many more it had. */
const reportedIssues = (error: z.ZodError) => {
  const issues = withoutImpliedIntBounds(error.issues);
  const reported = issues.slice(0, MAX_REPORTED_ISSUES);
  return { reported, more: issues.length - reported.length };
};

const cut = (text: string) => (text.length > MAX_ISSUE_LENGTH ? `${text.slice(0, MAX_ISSUE_LENGTH)}${ELLIPSIS}` : text);

/** zod's issues as one sentence a person can act on, e.g. `limit: Too big: expected number to be <=100`. */
const describeIssues = (error: z.ZodError): string => {
  const { reported, more } = reportedIssues(error);
  const described = reported.map((issue) => cut(issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message));
  return described.join(ISSUE_SEPARATOR) + (more > 0 ? `${ISSUE_SEPARATOR}and ${more} more` : '');
};

/** The same issues as a list a program can read, field by field. */
const listIssues = (error: z.ZodError): ValidationIssue[] =>
  reportedIssues(error).reported.map((issue) => ({
    path: issue.path.slice(0, MAX_ISSUE_PATH_DEPTH).map((key) => (typeof key === 'number' ? key : cut(String(key)))),
    message: cut(issue.message),
  }));

/** zod's error when `error` is an input that failed validation: tRPC raises BAD_REQUEST with it as the cause. */
const invalidInput = (error: TRPCError): z.ZodError | undefined =>
  error.code === 'BAD_REQUEST' && error.cause instanceof z.ZodError ? error.cause : undefined;

const messageOf = (error: TRPCError, invalid: z.ZodError | undefined): string => {
  if (error.code === 'INTERNAL_SERVER_ERROR') return INTERNAL_ERROR_MESSAGE;
  return invalid ? describeIssues(invalid) : error.message;
};

/**
 * The Error body for any error, on either transport. Invalid input reads as one sentence rather
 * than zod's issues serialised as JSON, and is listed field by field in `issues`; a crash's own
 * message may hold internals, so it is never shown.
 */
export const toErrorBody = (error: TRPCError): ErrorBody => {
  const invalid = invalidInput(error);
  const body: ErrorBody = { code: error.code, message: messageOf(error, invalid), status: getHTTPStatusCodeFromError(error) };
  if (invalid) body.issues = listIssues(invalid);
  return body;
};
