import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * An API key reads `pst_<public id>_<secret><checksum>`. The public id (12 hex characters) finds
 * the key's row without the secret ever being stored; the secret (43 base62 characters, 256 random
 * bits) is kept only as a SHA-256 hash. A slow password hash would add nothing: the secret is
 * random, not chosen by a person. The checksum is the CRC-32 of everything before it, in 6 base62
 * characters, as GitHub's tokens have it: a mistyped or made-up key is refused without a database
 * read, and the fixed `pst_` prefix with the checksum lets secret scanners recognise a leaked key
 * offline. Keys issued before checksums (`pst_<public id>_<43 base64url>`) are still accepted.
 */
export const TOKEN_PATTERN = /^pst_([0-9a-f]{12})_[0-9A-Za-z]{43}([0-9A-Za-z]{6})$/;
const LEGACY_TOKEN = /^pst_([0-9a-f]{12})_[A-Za-z0-9_-]{43}$/;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 43;
const CHECKSUM_LENGTH = 6;

/** 43 characters drawn uniformly from BASE62: bytes of 248 and over are dropped, so none is favoured. */
const randomBase62 = (length: number): string => {
  let text = '';
  while (text.length < length) {
    for (const byte of randomBytes(length)) {
      if (byte < 248 && text.length < length) text += BASE62.charAt(byte % 62);
    }
  }
  return text;
};

const checksumOf = (body: string): string => {
  let value = crc32(body);
  let text = '';
  for (let digit = 0; digit < CHECKSUM_LENGTH; digit++) {
    text = BASE62.charAt(value % 62) + text;
    value = Math.floor(value / 62);
  }
  return text;
};

export interface IssuedToken {
  token: string;
  publicId: string;
  secretHash: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

export const issueToken = (): IssuedToken => {
  const publicId = randomBytes(6).toString('hex');
  const body = `pst_${publicId}_${randomBase62(SECRET_LENGTH)}`;
  const token = `${body}${checksumOf(body)}`;
  return { token, publicId, secretHash: sha256(token).toString('hex') };
};

/** The public id of a well-formed key whose checksum holds (or of a key from before checksums), or undefined. */
export const publicIdOf = (token: string): string | undefined => {
  const match = TOKEN_PATTERN.exec(token);
  if (match) return checksumOf(token.slice(0, -CHECKSUM_LENGTH)) === match[2] ? match[1] : undefined;
  return LEGACY_TOKEN.exec(token)?.[1];
};

/** Compares in constant time, so response timing says nothing about how much of a key matched. */
export const tokenMatchesHash = (token: string, secretHash: string): boolean => {
  const expected = Buffer.from(secretHash, 'hex');
  const actual = sha256(token);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
};
