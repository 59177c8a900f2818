import { errorReply } from '../http/error-reply.js';
import type { RequestContext } from '../http/request-context.js';
import { READ_METHODS, methodNotAllowed, nothingAt } from '../http/failure.js';
import type { Reply, Handler } from '../http/reply.js';
import type { Readiness } from '../stores/open-stores.js';
import { DOCS_FILES, createDocsPage } from './docs-page.js';
import { createReadyz, healthz } from './health.js';
import { homePage } from './home-page.js';

type Page = (context: RequestContext) => Reply | Promise<Reply>;

/** A path as the pages match it: without its query, one trailing slash or its case. */
const pagePath = (url: string | undefined) => {
  const path = (url ?? '/').split('?', 1)[0] ?? '/';
  return (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).toLowerCase();
};

/**
 * What the service serves besides the API: the root's page of links, the docs page and its files,
 * liveness and readiness, each answering GET (and HEAD), and the 404 for a path that is nobody's.
 */
export const createPages = ({ ready }: { ready: () => Promise<Readiness> }): Handler => {
  const docs = createDocsPage();
  const readyz = createReadyz(ready);
  const pages = new Map<string, Page>([
    ...DOCS_FILES.map((file): [string, Page] => [pagePath(`/docs${file}`), (context) => docs(file, context.req.headers['if-none-match'])]),
    ['/', homePage],
    ['/healthz', healthz],
    ['/readyz', readyz],
  ]);
  return {
    serve: async (context) => {
      const { method, url } = context.req;
      const page = pages.get(pagePath(url));
      if (!page) return errorReply(context, nothingAt(method, url));
      if (method !== 'GET' && method !== 'HEAD') return errorReply(context, methodNotAllowed(method, url, READ_METHODS), ['Allow', READ_METHODS]);
      return page(context);
    },
    refuse: errorReply,
  };
};
