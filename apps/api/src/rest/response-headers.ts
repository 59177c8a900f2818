import type { Context, ResponseNotes } from '@petstore/core';
import type { RestOperation } from './operations.js';

export type HeaderMap = Record<string, string>;

export const REST_PREFIX = '/v1';

/** `Link: <…>; rel="next"` (RFC 8288): the next page's URL, same limit and filter plus a cursor. */
export const nextPageLink = (operation: RestOperation, next: NonNullable<ResponseNotes['nextPage']>) => {
  const query = new URLSearchParams(Object.entries(next).map(([name, value]): [string, string] => [name, String(value)]));
  return `<${REST_PREFIX}${operation.path}?${query.toString()}>; rel="next"`;
};

/** Deprecation (RFC 9745), Sunset (RFC 8594) and the successor's address, fixed per operation. */
const deprecationHeaders = (operation: RestOperation, operations: RestOperation[]) => {
  const deprecation = operation.meta.deprecation;
  if (!deprecation) return undefined;
  const successor = operations.find((candidate) => candidate.procedure === deprecation.successor);
  if (!successor) throw new Error(`${operation.procedure}: unknown successor ${deprecation.successor}`);
  return {
    deprecation: `@${Math.floor(deprecation.since.getTime() / 1000)}`,
    sunset: deprecation.sunset.toUTCString(),
    link: `<${REST_PREFIX}${successor.path}>; rel="successor-version"`,
  };
};

export interface SuccessResponse {
  status: number;
  headers: HeaderMap;
}

/**
 * The function that gives a successful call of `operation` its status and headers. Whatever does
 * not depend on the result (the status, the content type, deprecation headers) is worked out here,
 * once; a call only adds its `Location` or its next-page `Link`.
 */
export const successResponder = (operation: RestOperation, operations: RestOperation[]) => {
  const status = operation.meta.successStatus ?? 200;
  const fixed = deprecationHeaders(operation, operations);
  const unchanging: SuccessResponse = {
    status,
    headers: {
      'Content-Type': 'application/json',
      ...(fixed && { Deprecation: fixed.deprecation, Sunset: fixed.sunset, Link: fixed.link }),
    },
  };
  return (ctx: Context, data: unknown): SuccessResponse => {
    const next = ctx.response.nextPage;
    if (next) {
      const link = nextPageLink(operation, next);
      const links = unchanging.headers.Link ? `${unchanging.headers.Link}, ${link}` : link;
      return { status, headers: { ...unchanging.headers, Link: links } };
    }
    if (status === 201) {
      // A created resource lives under the collection it was posted to.
      const location = `${REST_PREFIX}${operation.path}/${(data as { id: number }).id}`;
      const replayed = ctx.response.replayed && { 'Idempotent-Replayed': 'true' };
      return { status, headers: { ...unchanging.headers, Location: location, ...replayed } };
    }
    return unchanging;
  };
};
