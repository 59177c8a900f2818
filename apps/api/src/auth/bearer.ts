import type { ApiKeyPrincipal, ApiKeys } from '@petstore/core';
import type { RequestHandler } from 'express';
import { sendError } from '../http/send-error.js';

/** The RFC 6750 challenge every 401 carries. */
export const BEARER_CHALLENGE = 'Bearer realm="petstore"';

/**
 * The token of an `Authorization: Bearer <token>` header. The scheme name is case-insensitive
 * (RFC 9110); the token is taken exactly as sent, so a key with anything added or missing fails.
 */
export const bearerToken = (authorization: string | undefined): string | undefined =>
  /^Bearer +(\S+)$/i.exec(authorization ?? '')?.[1];

export const authenticate = async (
  apiKeys: ApiKeys,
  authorization: string | undefined,
): Promise<ApiKeyPrincipal | null> => {
  const token = bearerToken(authorization);
  return token === undefined ? null : apiKeys.authenticate(token);
};

export interface AuthenticatedLocals {
  principal: ApiKeyPrincipal;
}

/**
 * Checks the key before anything else about the request, so a caller without a valid key learns
 * nothing else, not even which paths exist.
 */
export const requireApiKey =
  (apiKeys: ApiKeys): RequestHandler<never, unknown, unknown, never, Partial<AuthenticatedLocals>> =>
  async (req, res, next) => {
    const principal = await authenticate(apiKeys, req.headers.authorization);
    if (principal) {
      res.locals.principal = principal;
      next();
      return;
    }
    res.setHeader('WWW-Authenticate', BEARER_CHALLENGE);
    sendError(
      res,
      'UNAUTHORIZED',
      req.headers.authorization === undefined
        ? 'Missing API key: send "Authorization: Bearer <API_KEY>".'
        : 'Invalid API key.',
    );
  };
