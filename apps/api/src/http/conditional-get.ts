import { hash } from 'node:crypto';
import type { HeaderObject, OperationObject, ParameterObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';
import type { FlatHeaders } from './request-context.js';
import type { BodyReply, EmptyReply } from './reply.js';

/**
 * Conditional GET (RFC 9110 §13.1.2): every GET of the REST interface and every file of the docs
 * page answers with a strong ETag, and with 304 and no body when `If-None-Match` names it. What
 * it does and how the OpenAPI document describes it, in one place.
 */

/**
 * A strong entity tag (RFC 9110 §8.8.3) for a representation: its body and `varying`, a header
 * that can change while the body stays the same (a page's `Link: rel="next"` appears when an animal
 * is added after it, and a cached copy without it would hide the next page). Headers fixed for a
 * route need no place in it.
 */
export const entityTag = (body: string | Buffer, varying?: string): string =>
  `"${hash('sha1', varying === undefined ? body : `${body.toString()}\n${varying}`, 'base64url')}"`;

/** The length of every tag `entityTag` makes: SHA-1 in base64url between quotes. */
const ENTITY_TAG_LENGTH = 29;

/**
 * Whether `If-None-Match` names the current representation (weak comparison): then the answer is
 * 304 with no body.
 */
export const isNotModified = (ifNoneMatch: string | undefined, tag: string): boolean => {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => {
    const trimmed = candidate.trim();
    return (trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed) === tag;
  });
};

/**
 * A GET's answer: `reply` with its tag and the request's RateLimit headers, or 304 with the tag and
 * `reply`'s headers but no body when the client holds it. A 304 counts against the quota like the
 * 200 it stands for: it was as much work to find out.
 */
export const answerConditionally = (
  ifNoneMatch: string | undefined,
  { status, body, headers }: { status: number; body: string; headers: FlatHeaders },
  varying: string | undefined,
  rateLimitHeaders: FlatHeaders,
): BodyReply | EmptyReply => {
  const tag = entityTag(body, varying);
  const answered = [...rateLimitHeaders, ...headers, 'ETag', tag];
  if (isNotModified(ifNoneMatch, tag)) return { kind: 'empty', status: 304, headers: answered };
  return { kind: 'body', status, body, headers: answered };
};

/** The strong tag of a GET's representation, as `entityTag` makes it. */
const ENTITY_TAG_SCHEMA: SchemaObject = {
  type: 'string',
  pattern: '^"[A-Za-z0-9_-]{27}"$',
  maxLength: ENTITY_TAG_LENGTH,
  examples: ['"2jmj7l5rSw0yVb_vlWAYkK_YBwk"'],
};

const ETAG: HeaderObject = {
  description: 'A strong tag of this representation; send it back as `If-None-Match` to get a 304 while it is current.',
  required: true,
  schema: ENTITY_TAG_SCHEMA,
};

const IF_NONE_MATCH: ParameterObject = {
  name: 'If-None-Match',
  in: 'header',
  description: 'Tags the client holds (`*`: any): when one is current, the answer is 304 with no body; it counts against the quota like the 200.',
  schema: {
    type: 'string',
    // `*`, or a list of entity tags, weak or strong (RFC 9110 §13.1.2).
    pattern: '^(\\*|(W/)?"[^"]*"(\\s*,\\s*(W/)?"[^"]*")*)$',
    maxLength: 1024,
    examples: ['"2jmj7l5rSw0yVb_vlWAYkK_YBwk"'],
  },
};

/**
 * How the document shows a conditional GET: its 200 carries an ETag, it takes If-None-Match, and
 * it may answer 304 Not Modified, with the tag and the headers of the 200 but no body.
 */
export const describeConditionalGet = (operation: OperationObject, responses: Record<string, ResponseObject>) => {
  const ok = responses['200'];
  if (!ok) return;
  ok.headers = { ...ok.headers, ETag: ETAG };
  operation.parameters = [...(operation.parameters ?? []), IF_NONE_MATCH];
  responses['304'] = {
    description: 'Not Modified: the `If-None-Match` tag is current. No body; it counts against the quota like the 200.',
    headers: { ...ok.headers },
  };
};
