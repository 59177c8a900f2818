import { isReplayed } from '@petstore/core';
import { answerConditionally } from '../http/conditional-get.js';
import type { FlatHeaders } from '../http/request-context.js';
import type { Reply } from '../http/reply.js';
import type { Admitted } from '../admission/admit.js';
import type { RestOperation } from './routes.js';

/** What the answer needs of the request: the operation it ran, its method, its query, the tags the client holds. */
export interface AnswerOptions {
  restOp: RestOperation;
  method: string;
  search: string;
  ifNoneMatch: string | undefined;
}

interface Page {
  items: unknown;
  nextCursor: string | null;
}

/** `Link: <…>; rel="next"` (RFC 8288): this request's query again, with the next page's cursor. */
const nextPageLink = (restOp: RestOperation, search: string, nextCursor: string): string => {
  const query = new URLSearchParams(search);
  query.set('cursor', nextCursor);
  return `<${restOp.address}?${query.toString()}>; rel="next"`;
};

/**
 * The last step of a REST request: a success as REST sends it, from the operation's meta: its
 * status and fixed headers, and what the result adds: a page's items as the body and its next
 * page's `Link` (the one header that can change while the body stays the same, which a GET's entity
 * tag covers), a created resource's `Location`, a replayed create's `Idempotent-Replayed`. A GET is
 * answered conditionally; every success carries the request's RateLimit headers.
 */
export const answerRest = ({ restOp, method, search, ifNoneMatch }: AnswerOptions, admitted: Admitted, result: unknown): Reply => {
  const { status, fixedHeaders, deprecation } = restOp;
  let body: string;
  let headers: FlatHeaders = fixedHeaders;
  let varying: string | undefined;
  if (restOp.paginated) {
    const { items, nextCursor } = result as Page;
    body = JSON.stringify(items);
    if (nextCursor !== null) {
      const next = nextPageLink(restOp, search, nextCursor);
      varying = deprecation ? `${deprecation.link}, ${next}` : next;
      headers = [...(deprecation?.headers ?? []), 'Link', varying];
    }
  } else {
    body = JSON.stringify(result);
    if (restOp.createdUnder !== undefined) {
      headers = [...headers, 'Location', `${restOp.createdUnder}${(result as { id: number }).id}`];
      if (isReplayed(result)) headers.push('Idempotent-Replayed', 'true');
    }
  }
  if (method === 'GET') return answerConditionally(ifNoneMatch, { status, body, headers }, varying, admitted.headers);
  return { kind: 'body', status, body, headers: [...admitted.headers, ...headers] };
};
