import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * An API key reads `pst_<public id>_<secret>`. The public id (12 hex characters) finds the key's
 * row without the secret ever being stored; the secret (256 random bits) is kept only as a SHA-256
 * hash. A slow password hash would add nothing: the secret is random, not chosen by a person.
 * The fixed `pst_` prefix lets secret scanners recognise a leaked key.
 */
const TOKEN = /^pst_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export interface IssuedToken {
  token: string;
  publicId: string;
  secretHash: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

export const issueToken = (): IssuedToken => {
  const publicId = randomBytes(6).toString('hex');
  const token = `pst_${publicId}_${randomBytes(32).toString('base64url')}`;
  return { token, publicId, secretHash: sha256(token).toString('hex') };
};

/** The public id of a well-formed key, or undefined. */
export const publicIdOf = (token: string): string | undefined => TOKEN.exec(token)?.[1];

/** Compares in constant time, so response timing says nothing about how much of a key matched. */
export const tokenMatchesHash = (token: string, secretHash: string): boolean => {
  const expected = Buffer.from(secretHash, 'hex');
  const actual = sha256(token);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
};
