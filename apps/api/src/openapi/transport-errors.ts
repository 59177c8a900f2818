import { STATUS_CODES } from 'node:http';
import type { ComponentsObject, HeaderObject, ReferenceObject, ResponseObject } from 'openapi3-ts/oas31';
import { BEARER_CHALLENGE, insufficientScopeChallenge } from '../admission/admit.js';
import { QUOTA_WINDOW_SECONDS } from '../admission/quota.js';
import { BODY_LIMIT_TEXT } from '../http/read-body.js';
import { JSON_TYPE } from '../http/reply.js';
import { transportHeaders } from './transport-headers.js';

/**
 * The error responses the transport gives whatever the procedure does: the key check (401 before
 * anything else), the scope the procedure's meta names, the body reader (413 and 415, for an
 * operation that takes a body), the quotas, a crash, an overload or an unavailable store. The
 * procedures' meta lists only what they answer themselves.
 */
const TRANSPORT_ERRORS: Record<number, string> = {
  401: 'Missing or invalid API key.',
  403: 'The API key lacks the scope this operation needs (`WWW-Authenticate` names it).',
  413: `Body larger than ${BODY_LIMIT_TEXT}.`,
  415: `Body not sent as ${JSON_TYPE}.`,
  429: "Too many requests: the key's quota, or the address's failed authentications, is spent; `Retry-After` says when to try again.",
  500: 'The server failed; the cause is logged, never sent.',
  503: 'The service is overloaded, or a store it depends on is unavailable; `Retry-After` says when to try again.',
};
const BODY_ERRORS = new Set([413, 415]);

/** The transport's error statuses for an operation, each with its description. */
export const transportErrors = ({ takesBody }: { takesBody: boolean }): Record<number, string> =>
  Object.fromEntries(Object.entries(TRANSPORT_ERRORS).filter(([status]) => takesBody || !BODY_ERRORS.has(Number(status))));

const RETRY_AFTER: HeaderObject = {
  description: 'Seconds until the quota allows another request.',
  required: true,
  // Every quota counts per window; its count starts again within one.
  schema: { type: 'integer', format: 'int32', minimum: 1, maximum: QUOTA_WINDOW_SECONDS, examples: [17] },
};

const RETRY_LATER: HeaderObject = {
  description: 'Seconds to wait before trying again.',
  required: true,
  schema: { type: 'integer', format: 'int32', minimum: 1, maximum: QUOTA_WINDOW_SECONDS, examples: [1] },
};

/** The headers an error carries by status: the RFC 6750 challenges and when to come back. */
const errorHeaders = (status: number, scope: string): Record<string, HeaderObject> => {
  if (status === 401) {
    return { 'WWW-Authenticate': { description: 'The RFC 6750 bearer challenge.', required: true, schema: { type: 'string', const: BEARER_CHALLENGE } } };
  }
  if (status === 403) {
    return {
      'WWW-Authenticate': {
        description: 'The RFC 6750 challenge naming the scope the key lacks.',
        required: true,
        schema: { type: 'string', const: insufficientScopeChallenge(scope) },
      },
    };
  }
  if (status === 429) return { 'Retry-After': RETRY_AFTER };
  if (status === 503) return { 'Retry-After': RETRY_LATER };
  return {};
};

/** An error response as the service sends it: the Error body whatever the status, and its headers. */
const errorResponse = (status: number, description: string, scope: string): ResponseObject => ({
  description,
  headers: { ...errorHeaders(status, scope), ...transportHeaders(String(status)) },
  content: { [JSON_TYPE]: { schema: { $ref: '#/components/schemas/Error' } } },
});

/**
 * The component an error status is described by: one per status, named by its reason phrase
 * (`BadRequest`), and for 403 one per scope, whose challenge it names (`Forbidden.pets-read`).
 */
const componentName = (status: number, scope: string) => {
  const reason = (STATUS_CODES[status] ?? `Status${status}`).replace(/[^A-Za-z]/g, '');
  return status === 403 ? `${reason}.${scope.replace(/[^A-Za-z0-9._-]/g, '-')}` : reason;
};

/**
 * Describes each error response once, in `components.responses`, and answers the reference an
 * operation lists it by. An operation's own error (a 400 that names what it checks) keeps its
 * words in the reference, as OpenAPI 3.1 lets a reference override the description.
 */
export const describeError = (
  components: ComponentsObject,
  { status, description, scope }: { status: number; description: string; scope: string },
): ReferenceObject => {
  const name = componentName(status, scope);
  const general = TRANSPORT_ERRORS[status] ?? `${STATUS_CODES[status] ?? 'Error'}.`;
  (components.responses ??= {})[name] ??= errorResponse(status, general, scope);
  const $ref = `#/components/responses/${name}`;
  return description === general ? { $ref } : { $ref, description };
};
