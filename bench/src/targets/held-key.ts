import { timingSafeEqual } from 'node:crypto';
import { heldApiKey } from './ready.js';

const held = Buffer.from(heldApiKey());

/**
 * Whether an Authorization header carries the key this target holds. Every peer and bare server
 * checks keys with this one function, so their key checks cost the same and only the framework
 * differs; the comparison takes the same time wherever the token differs.
 */
export const holdsKey = (authorization: string | undefined): boolean => {
  const token = /^Bearer +(\S+)$/i.exec(authorization ?? '')?.[1];
  if (token === undefined) return false;
  const sent = Buffer.from(token);
  return sent.length === held.length && timingSafeEqual(sent, held);
};

/** What every 401 of the contract carries beside its Error body. */
export const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="petstore"' } as const;
