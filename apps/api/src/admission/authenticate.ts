import type { IncomingMessage } from 'node:http';
import type { ApiKeyPrincipal, ApiKeys, NOT_LOOKED_UP } from '@petstore/core';
import type { Quota } from './quota.js';

/**
 * The token of an `Authorization: Bearer <token>` header. The scheme name is case-insensitive
 * (RFC 9110); the token is taken exactly as sent, so a key with anything added or missing fails.
 */
const bearerToken = (authorization: string | undefined): string | undefined =>
  /^Bearer +(\S+)$/i.exec(authorization ?? '')?.[1];

/**
 * Who sent a request, as the key store says: the key's principal, null for no key or one that is
 * not a live key, or NOT_LOOKED_UP for a key the store was not asked about because its address
 * is past its failed-authentication throttle.
 */
export type Authentication = ApiKeyPrincipal | null | typeof NOT_LOOKED_UP;

export interface AuthenticationDependencies {
  apiKeys: ApiKeys;
  /** Failed authentications per client address; undefined when off. */
  failedAuthQuota: Quota | undefined;
  clientAddress: (req: IncomingMessage) => string;
}

/**
 * The first step of admission: the key a request carries, authenticated by the key store. A key
 * the store does not know good is looked up only while the request's address is within its
 * failed-authentication throttle, so guesses from a throttled address cost the store nothing,
 * and a key this instance knows good is not refused for what others sent from its address.
 * What is answered to each outcome is admission's next step (admit.ts).
 */
export const createAuthentication = ({ apiKeys, failedAuthQuota, clientAddress }: AuthenticationDependencies) => {
  return (req: IncomingMessage): Promise<Authentication> => {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) return Promise.resolve(null);
    return apiKeys.authenticate(token, failedAuthQuota && (() => failedAuthQuota.peek(clientAddress(req)).allowed));
  };
};

export type Authenticate = ReturnType<typeof createAuthentication>;
