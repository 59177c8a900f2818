import type { HeaderObject, ResponseObject } from 'openapi3-ts/oas31';
import { BEARER_CHALLENGE, insufficientScopeChallenge } from '../admission/admit.js';
import { QUOTA_WINDOW_SECONDS } from '../admission/quota.js';
import { BODY_LIMIT_TEXT } from '../exchange/read-body.js';

/** What the body reader (exchange/read-body.ts) refuses. */
const BODY_ERRORS: Record<number, string> = {
  413: `Body larger than ${BODY_LIMIT_TEXT}.`,
  415: 'Body not sent as application/json.',
};

/**
 * The error responses the transport gives whatever the procedure does: the key check (401 before
 * anything else), the scope the procedure's meta names, the body reader, the quotas, a crash, an
 * overload or an unavailable store. The procedures' meta lists only what they answer themselves.
 */
export const transportErrors = ({ takesBody }: { takesBody: boolean }): Record<number, string> => ({
  401: 'Missing or invalid API key.',
  403: 'The API key lacks the scope this operation needs (`WWW-Authenticate` names it).',
  ...(takesBody ? BODY_ERRORS : {}),
  429: "Too many requests: the key's quota, or the address's failed authentications, is spent; `Retry-After` says when to try again.",
  500: 'The server failed; the cause is logged, never sent.',
  503: 'The service is overloaded, or a store it depends on is unavailable; `Retry-After` says when to try again.',
});

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

/**
 * An error response as the service sends it: the Error body whatever the status, and the headers
 * of that status. `scope`: the one the operation needs, which its 403 names.
 */
export const errorResponse = (status: number, description: string, scope: string): ResponseObject => ({
  description,
  headers: errorHeaders(status, scope),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});
