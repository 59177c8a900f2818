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

/**
 * Builds, per operation, the function that turns a successful result into its status and
 * headers. Everything that does not depend on the result is worked out here, once.
 */
export const successResponses = (operations: RestOperation[]) => {
  const byProcedure = new Map(
    operations.map((operation) => {
      const status = operation.meta.successStatus ?? 200;
      const fixed = deprecationHeaders(operation, operations);
      const respond = (ctx: Context | undefined, data: unknown): { status: number; headers: HeaderMap } => {
        const links = [fixed?.link];
        const next = ctx?.response.nextPage;
        if (next) links.push(nextPageLink(operation, next));
        const link = links.filter(Boolean).join(', ');
        const headers: HeaderMap = {
          ...(fixed && { Deprecation: fixed.deprecation, Sunset: fixed.sunset }),
          ...(link && { Link: link }),
          // A created resource lives under the collection it was posted to.
          ...(status === 201 && { Location: `${REST_PREFIX}${operation.path}/${(data as { id: number }).id}` }),
        };
        return { status, headers };
      };
      return [operation.procedure, respond] as const;
    }),
  );
  return (procedure: string | undefined) => (procedure === undefined ? undefined : byProcedure.get(procedure));
};
