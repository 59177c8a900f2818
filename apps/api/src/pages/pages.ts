import { errorReply } from '../exchange/error-reply.js';
import type { Exchange } from '../exchange/exchange.js';
import { READ_METHODS, methodNotAllowed, nothingAt } from '../exchange/failure.js';
import type { Reply, Transport } from '../exchange/reply.js';
import type { Readiness } from '../stores/open-stores.js';
import { DOCS_FILES, createDocsPage } from './docs-page.js';
import { createReadyz, healthz } from './health.js';
import { homePage } from './home-page.js';

type Page = (exchange: Exchange) => Reply | Promise<Reply>;

/** A path as the pages match it: without its query, one trailing slash or its case. */
const pagePath = (url: string | undefined) => {
  const path = (url ?? '/').split('?', 1)[0] ?? '/';
  return (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).toLowerCase();
};

/**
 * What the service serves besides the API: the root's page of links, the docs page and its files,
 * liveness and readiness, each answering GET (and HEAD), and the 404 for a path that is nobody's.
 */
export const createPages = ({ ready }: { ready: () => Promise<Readiness> }): Transport => {
  const docs = createDocsPage();
  const readyz = createReadyz(ready);
  const pages = new Map<string, Page>([
    ...DOCS_FILES.map((file): [string, Page] => [pagePath(`/docs${file}`), (exchange) => docs(file, exchange.req.headers['if-none-match'])]),
    ['/', homePage],
    ['/healthz', healthz],
    ['/readyz', readyz],
  ]);
  return {
    serve: async (exchange) => {
      const { method, url } = exchange.req;
      const page = pages.get(pagePath(url));
      if (!page) return errorReply(exchange, nothingAt(method, url));
      if (method !== 'GET' && method !== 'HEAD') return errorReply(exchange, methodNotAllowed(method, url, READ_METHODS), ['Allow', READ_METHODS]);
      return page(exchange);
    },
    refuse: errorReply,
  };
};
