import { REST_PREFIX } from '@petstore/core';
import type { Transport } from '../admission/admit.js';
import { errorReply } from '../http/error-reply.js';
import type { RequestContext } from '../http/request-context.js';
import { READ_METHODS, methodNotAllowed } from '../http/failure.js';
import type { Reply } from '../http/reply.js';
import { type OperateDependencies, type RestRequest, operate } from './operate.js';
import { type RestRoute, compileRoutes } from './routes.js';

const DOCUMENT_PATH = `${REST_PREFIX}/openapi.json`;

const decode = (text: string) => {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};

/** The route whose template matches `path`, with its parameters percent-decoded (undefined when one cannot be). */
const match = (routes: readonly RestRoute[], path: string): RestRequest['found'] => {
  for (const route of routes) {
    const found = route.pattern.exec(path);
    if (!found) continue;
    const params: Record<string, string> = {};
    for (const [index, name] of route.parameters.entries()) {
      const value = decode(found[index + 1] ?? '');
      if (value === undefined) return { route, params: undefined };
      params[name] = value;
    }
    return { route, params };
  }
  return undefined;
};

export interface RestTransportDependencies extends OperateDependencies {
  /** The OpenAPI document, serialised, made on first use. */
  openApiJson: () => Promise<string>;
}

/**
 * The REST interface under `/v1`, served from the operations' OpenAPI meta: the same meta
 * trpc-to-openapi turns into the document. A request reads forward, a step a file: here its path
 * and query are read and its route found; then the front door's admission (admission/), the
 * operation (operate.ts), and its answer (answer.ts), each handed the request by the one before.
 */
export const createRestTransport = ({ openApiJson, ...dependencies }: RestTransportDependencies): Transport<RestRequest> => {
  const routes = compileRoutes();
  const serveDocument = (context: RequestContext, method: string): Promise<Reply> =>
    method === 'GET'
      ? openApiJson().then((body) => ({ kind: 'body', status: 200, headers: [], body }))
      : Promise.resolve(errorReply(context, methodNotAllowed(context.req.method, context.req.url, READ_METHODS), ['Allow', READ_METHODS]));

  return {
    read: (context) => {
      const url = context.req.url ?? '/';
      const queryStart = url.indexOf('?');
      const path = queryStart === -1 ? url : url.slice(0, queryStart);
      const method = context.req.method === 'HEAD' ? 'GET' : (context.req.method ?? 'GET');
      if (path === DOCUMENT_PATH) return serveDocument(context, method);
      return { context, method, search: queryStart === -1 ? '' : url.slice(queryStart + 1), found: match(routes, path), quotaCost: 1 };
    },
    answer: operate.bind(undefined, dependencies),
    refuse: errorReply,
  };
};
