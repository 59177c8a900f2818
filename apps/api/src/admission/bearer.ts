/** The RFC 6750 challenge every 401 carries. */
export const BEARER_CHALLENGE = 'Bearer realm="petstore"';

/** The RFC 6750 §3.1 challenge of a 403: the key is good, but lacks `scope`. */
export const insufficientScopeChallenge = (scope: string) => `${BEARER_CHALLENGE}, error="insufficient_scope", scope="${scope}"`;

/**
 * The token of an `Authorization: Bearer <token>` header. The scheme name is case-insensitive
 * (RFC 9110); the token is taken exactly as sent, so a key with anything added or missing fails.
 */
export const bearerToken = (authorization: string | undefined): string | undefined =>
  /^Bearer +(\S+)$/i.exec(authorization ?? '')?.[1];
