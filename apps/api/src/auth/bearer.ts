import type { ApiKeyPrincipal, ApiKeys } from '@petstore/core';
import type { Response } from 'express';
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

/** 401 with the challenge, saying whether the key was missing or wrong, never why it was wrong. */
export const refuseKey = (res: Response, authorization: string | undefined): void => {
  res.setHeader('WWW-Authenticate', BEARER_CHALLENGE);
  sendError(
    res,
    'UNAUTHORIZED',
    authorization === undefined ? 'Missing API key: send "Authorization: Bearer <API_KEY>".' : 'Invalid API key.',
  );
};
