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
