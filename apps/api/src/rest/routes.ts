import { type Operation, type ProcedureMeta, REST_PREFIX, operations } from '@petstore/core';
import type { OpenApiMethod } from 'trpc-to-openapi';
import type { FlatHeaders } from '../http/request-context.js';

/**
 * An operation as the REST interface serves it, worked out once from its `openapi` meta: what a
 * request needs of it is data, so a request runs no code of this file.
 */
export interface RestOperation {
  /** The procedure's name, `getPet`. */
  name: string;
  operation: Operation;
  method: OpenApiMethod;
  /** The OpenAPI path template, e.g. `/pets/{petId}`. */
  path: string;
  meta: ProcedureMeta;
  /** Its input comes as a JSON body (POST, PUT, PATCH), else from the query and the path. */
  takesBody: boolean;
  /** The status of a success: the meta's, 200 unless stated. */
  status: number;
  /** Deprecation (RFC 9745), Sunset (RFC 8594) and the successor's address, for a deprecated operation. */
  deprecation: { headers: FlatHeaders; link: string } | undefined;
  /** The headers of every success: the deprecation's. */
  fixedHeaders: FlatHeaders;
  /**
   * Where a resource it creates (a 201) can be read: the address of the GET under this path
   * (`/v1/pets/`), followed by the result's `id`. Undefined when it creates nothing readable.
   */
  createdUnder: string | undefined;
  /** Its result is a page, `{ items, nextCursor }`: REST sends the items and links the next page. */
  paginated: boolean;
  /** The address of this path, for a next page's link (`/v1/pets`). */
  address: string;
}

export interface RestRoute {
  /** `/v1/pets/{petId}`: the route a request is labelled with, never its raw URL. */
  name: string;
  /** Matches the path; each parameter is a group, in `parameters`' order. */
  pattern: RegExp;
  parameters: string[];
  /** The operations on this path, by HTTP method. */
  byMethod: ReadonlyMap<string, RestOperation>;
  /** The `Allow` header for this path: its methods, and HEAD wherever GET is. */
  allow: string;
}

const METHODS_WITH_BODY: ReadonlySet<OpenApiMethod> = new Set(['POST', 'PUT', 'PATCH']);

/** Deprecation, Sunset and the successor's address, fixed per operation. */
const deprecationOf = (name: string, meta: ProcedureMeta, all: Readonly<Record<string, Operation>>) => {
  const { deprecation } = meta;
  if (!deprecation) return undefined;
  const successor = all[deprecation.successor]?.meta.openapi;
  if (!successor) throw new Error(`${name}: unknown successor ${deprecation.successor}`);
  return {
    headers: ['Deprecation', `@${Math.floor(deprecation.since.getTime() / 1000)}`, 'Sunset', deprecation.sunset.toUTCString()],
    link: `<${REST_PREFIX}${successor.path}>; rel="successor-version"`,
  };
};

/** `/pets` → `/v1/pets/`, when some operation reads one item under it as `GET /pets/{…}`. */
const itemAddressUnder = (path: string, all: Readonly<Record<string, Operation>>) => {
  const item = new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/\\{\\w+\\}$`);
  const reads = Object.values(all).some(({ meta }) => meta.openapi?.method === 'GET' && item.test(meta.openapi.path));
  return reads ? `${REST_PREFIX}${path}/` : undefined;
};

/** The operations that have an `openapi` meta, as REST serves them. */
export const restOperations = (all: Readonly<Record<string, Operation>> = operations): RestOperation[] =>
  Object.entries(all).flatMap(([name, operation]) => {
    const { meta } = operation;
    if (!meta.openapi) return [];
    const { method, path } = meta.openapi;
    const deprecation = deprecationOf(name, meta, all);
    const status = meta.successStatus ?? 200;
    return [
      {
        name,
        operation,
        method,
        path,
        meta,
        takesBody: METHODS_WITH_BODY.has(method),
        status,
        deprecation,
        fixedHeaders: deprecation ? [...deprecation.headers, 'Link', deprecation.link] : [],
        createdUnder: status === 201 ? itemAddressUnder(path, all) : undefined,
        paginated: meta.paginated === true,
        address: `${REST_PREFIX}${path}`,
      },
    ];
  });

/** `/v1/pets/{petId}` → /^\/v1\/pets\/([^/]+)$/ and its parameters, `['petId']`. */
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

/** The route table, one route per path template, compiled once from the operations' OpenAPI meta. */
export const compileRoutes = (restOps: readonly RestOperation[] = restOperations()): RestRoute[] => {
  const byTemplate = new Map<string, Map<string, RestOperation>>();
  for (const restOp of restOps) {
    const byMethod = byTemplate.get(restOp.path) ?? new Map<string, RestOperation>();
    byMethod.set(restOp.method, restOp);
    byTemplate.set(restOp.path, byMethod);
  }
  return [...byTemplate].map(([template, byMethod]) => {
    const methods = [...byMethod.keys()];
    return {
      name: `${REST_PREFIX}${template}`,
      ...toPattern(`${REST_PREFIX}${template}`),
      byMethod,
      allow: (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', '),
    };
  });
};
