import type { Context } from '@petstore/core';
import type { FlatHeaders } from '../front-door/exchange.js';
import { REST_PREFIX, type RestOperation } from './operations.js';

/** `Link: <…>; rel="next"` (RFC 8288): this request's query again, with the next page's cursor. */
export const nextPageLink = (operation: RestOperation, search: string, nextCursor: string): string => {
  const query = new URLSearchParams(search);
  query.set('cursor', nextCursor);
  return `<${REST_PREFIX}${operation.path}?${query.toString()}>; rel="next"`;
};

/** Deprecation (RFC 9745), Sunset (RFC 8594) and the successor's address, fixed per operation. */
const deprecationHeaders = (operation: RestOperation, operations: readonly RestOperation[]) => {
  const deprecation = operation.meta.deprecation;
  if (!deprecation) return undefined;
  const successor = operations.find((candidate) => candidate.entry.name === deprecation.successor);
  if (!successor) throw new Error(`${operation.entry.name}: unknown successor ${deprecation.successor}`);
  return {
    headers: ['Deprecation', `@${Math.floor(deprecation.since.getTime() / 1000)}`, 'Sunset', deprecation.sunset.toUTCString()],
    link: `<${REST_PREFIX}${successor.path}>; rel="successor-version"`,
  };
};

export interface SuccessResponse {
  status: number;
  /** What the REST body is: the result, or for a paginated procedure its items. */
  body: unknown;
  headers: FlatHeaders;
}

interface Page {
  items: unknown;
  nextCursor: string | null;
}

/**
 * The function that turns a successful call of `operation` into its REST response, from the
 * operation's meta. Whatever does not depend on the result (the status, deprecation headers) is
 * worked out here, once; a call adds only its `Location` (a 201 lives under the collection it was
 * posted to), its `Idempotent-Replayed`, or for a paginated result its next page's `Link`.
 */
export const successResponder = (operation: RestOperation, operations: readonly RestOperation[]) => {
  const status = operation.meta.successStatus ?? 200;
  const deprecation = deprecationHeaders(operation, operations);
  const fixed: FlatHeaders = deprecation ? [...deprecation.headers, 'Link', deprecation.link] : [];
  const links = (next: string) => (deprecation ? `${deprecation.link}, ${next}` : next);
  const paginated = operation.meta.paginated === true;

  return (ctx: Context, data: unknown, search: string): SuccessResponse => {
    if (paginated) {
      const { items, nextCursor } = data as Page;
      if (nextCursor === null) return { status, body: items, headers: fixed };
      const headers = deprecation ? [...deprecation.headers] : [];
      headers.push('Link', links(nextPageLink(operation, search, nextCursor)));
      return { status, body: items, headers };
    }
    if (status === 201) {
      const headers: FlatHeaders = [...fixed, 'Location', `${REST_PREFIX}${operation.path}/${(data as { id: number }).id}`];
      if (ctx.response.replayed) headers.push('Idempotent-Replayed', 'true');
      return { status, body: data, headers };
    }
    return { status, body: data, headers: fixed };
  };
};
