import { type Operation, type ProcedureMeta, isReplayed, operations } from '@petstore/core';
import type { OpenApiMethod } from 'trpc-to-openapi';
import type { FlatHeaders } from '../exchange/exchange.js';
import type { BodyReply } from '../exchange/reply.js';

/** An operation as the REST interface serves it, read once from its `openapi` meta. */
export interface RestOperation {
  /** The procedure's name, `getPet`. */
  name: string;
  operation: Operation;
  method: OpenApiMethod;
  /** The OpenAPI path template, e.g. `/pets/{petId}`. */
  path: string;
  meta: ProcedureMeta;
}

export interface RestRoute {
  /** The OpenAPI path template, e.g. `/pets/{petId}`. */
  template: string;
  /** Matches the template; each parameter is a group, in `parameters`' order. */
  pattern: RegExp;
  parameters: string[];
  /** The operations on this path, by HTTP method. */
  byMethod: ReadonlyMap<string, RestOperation>;
  /** The `Allow` header for this path: its methods, and HEAD wherever GET is. */
  allow: string;
}

export interface RouteMatch {
  route: RestRoute;
  /** Path parameters as sent, percent-decoded; undefined when one cannot be decoded. */
  params: Record<string, string> | undefined;
}

/** Where the REST interface lives: the contract's version root. */
export const REST_PREFIX = '/v1';

export const METHODS_WITH_BODY: ReadonlySet<OpenApiMethod> = new Set(['POST', 'PUT', 'PATCH']);

/** The operations that have an `openapi` meta, as REST operations. */
export const restOperations = (all: Readonly<Record<string, Operation>> = operations): RestOperation[] =>
  Object.entries(all).flatMap(([name, operation]) => {
    const { meta } = operation;
    return meta.openapi ? [{ name, operation, method: meta.openapi.method, path: meta.openapi.path, meta }] : [];
  });

/** `/pets/{petId}` → /^\/pets\/([^/]+)$/ and its parameters, `['petId']`. */
const toPattern = (template: string) => {
  const parameters: string[] = [];
  const source = template
    .split(/(\{\w+\})/)
    .map((part) => {
      const parameter = /^\{(\w+)\}$/.exec(part)?.[1];
      if (!parameter) return part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      parameters.push(parameter);
      return '([^/]+)';
    })
    .join('');
  return { pattern: new RegExp(`^${source}$`), parameters };
};

/** The route table, compiled once from the operations' OpenAPI meta. */
export const compileRoutes = (restOps: readonly RestOperation[]): RestRoute[] => {
  const byTemplate = new Map<string, Map<string, RestOperation>>();
  for (const restOp of restOps) {
    const byMethod = byTemplate.get(restOp.path) ?? new Map<string, RestOperation>();
    byMethod.set(restOp.method, restOp);
    byTemplate.set(restOp.path, byMethod);
  }
  return [...byTemplate].map(([template, byMethod]) => {
    const methods = [...byMethod.keys()];
    return {
      template,
      ...toPattern(template),
      byMethod,
      allow: (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', '),
    };
  });
};

const decode = (text: string) => {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};

/** The route whose template matches the path exactly, with its parameters. */
export const matchRoute = (routes: readonly RestRoute[], path: string): RouteMatch | undefined => {
  for (const route of routes) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    const params: Record<string, string> = {};
    for (const [index, name] of route.parameters.entries()) {
      const value = decode(match[index + 1] ?? '');
      if (value === undefined) return { route, params: undefined };
      params[name] = value;
    }
    return { route, params };
  }
  return undefined;
};

/** `Link: <…>; rel="next"` (RFC 8288): this request's query again, with the next page's cursor. */
export const nextPageLink = (restOp: RestOperation, search: string, nextCursor: string): string => {
  const query = new URLSearchParams(search);
  query.set('cursor', nextCursor);
  return `<${REST_PREFIX}${restOp.path}?${query.toString()}>; rel="next"`;
};

/** Deprecation (RFC 9745), Sunset (RFC 8594) and the successor's address, fixed per operation. */
const deprecationHeaders = (restOp: RestOperation, restOps: readonly RestOperation[]) => {
  const deprecation = restOp.meta.deprecation;
  if (!deprecation) return undefined;
  const successor = restOps.find((candidate) => candidate.name === deprecation.successor);
  if (!successor) throw new Error(`${restOp.name}: unknown successor ${deprecation.successor}`);
  return {
    headers: ['Deprecation', `@${Math.floor(deprecation.since.getTime() / 1000)}`, 'Sunset', deprecation.sunset.toUTCString()],
    link: `<${REST_PREFIX}${successor.path}>; rel="successor-version"`,
  };
};

interface Page {
  items: unknown;
  nextCursor: string | null;
}

/**
 * A success as REST sends it: its status, its body serialised, its headers, and `varying`, the one
 * header that can change while the body stays the same (a page's `Link: rel="next"` appears once
 * an animal follows it), which its entity tag covers with the body.
 */
export type SuccessReply = BodyReply & { body: string; headers: FlatHeaders; varying?: string };

/**
 * The function that turns a successful result of `restOp` into its REST reply, from the
 * operation's meta. Whatever does not depend on the result (the status, deprecation headers) is
 * worked out here, once; a result adds only its `Location` (a 201 lives under the collection it was
 * posted to), its `Idempotent-Replayed`, or for a paginated result its next page's `Link`.
 */
export const successReplyFor = (restOp: RestOperation, restOps: readonly RestOperation[]) => {
  const status = restOp.meta.successStatus ?? 200;
  const deprecation = deprecationHeaders(restOp, restOps);
  const fixed: FlatHeaders = deprecation ? [...deprecation.headers, 'Link', deprecation.link] : [];
  const links = (next: string) => (deprecation ? `${deprecation.link}, ${next}` : next);
  const paginated = restOp.meta.paginated === true;

  return (result: unknown, search: string): SuccessReply => {
    if (paginated) {
      const { items, nextCursor } = result as Page;
      const body = JSON.stringify(items);
      if (nextCursor === null) return { status, body, headers: fixed };
      const headers = deprecation ? [...deprecation.headers] : [];
      const next = links(nextPageLink(restOp, search, nextCursor));
      headers.push('Link', next);
      return { status, body, headers, varying: next };
    }
    if (status === 201) {
      const headers: FlatHeaders = [...fixed, 'Location', `${REST_PREFIX}${restOp.path}/${(result as { id: number }).id}`];
      if (isReplayed(result)) headers.push('Idempotent-Replayed', 'true');
      return { status, body: JSON.stringify(result), headers };
    }
    return { status, body: JSON.stringify(result), headers: fixed };
  };
};
