import { hash } from 'node:crypto';
import type { FlatHeaders } from '../front-door/exchange.js';

/**
 * A strong entity tag (RFC 9110 §8.8.3) for a representation: its body and the headers sent with
 * it (a page's `Link: rel="next"` appears when an animal is added after it, while its body stays
 * the same, and a cached copy without it would hide the next page).
 */
export const entityTag = (json: string, headers: FlatHeaders): string =>
  `"${hash('sha1', headers.length === 0 ? json : `${json}\n${headers.join('\n')}`, 'base64url')}"`;

/** The length of every tag `entityTag` makes: SHA-1 in base64url between quotes. */
export const ENTITY_TAG_LENGTH = 29;

/**
 * Whether `If-None-Match` names the current representation (RFC 9110 §13.1.2, weak comparison):
 * then the answer is 304 with no body.
 */
export const isNotModified = (ifNoneMatch: string | undefined, tag: string): boolean => {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => {
    const trimmed = candidate.trim();
    return (trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed) === tag;
  });
};
