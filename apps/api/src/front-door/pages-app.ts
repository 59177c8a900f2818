import { toTrpcError } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type express from 'express';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { type Exchange, exchangeOf } from '../exchange/exchange.js';
import { type Reply, methodNotAllowed, nothingAt } from '../exchange/reply.js';
import { DOCS_FILES, createDocsPage } from '../pages/docs-page.js';
import { healthz, readyz } from '../pages/health.js';
import type { Readiness } from '../stores/open-stores.js';
import { sendReply } from './send-reply.js';

/** A library's error that carries a 4xx status (a path Express cannot decode) is the client's. */
const CLIENT_ERROR_CODES: Partial<Record<number, TRPC_ERROR_CODE_KEY>> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/** An Express route whose page answers a Reply, written by the one writer. */
const page =
  (answer: (req: express.Request, exchange: Exchange) => Reply | Promise<Reply>): RequestHandler =>
  (req, _res, next) => {
    const exchange = exchangeOf(req);
    Promise.resolve(answer(req, exchange)).then((reply) => sendReply(exchange, reply), next);
  };

const GET_ONLY = 'GET, HEAD';
const onlyGet = page((req) => methodNotAllowed(req.method, req.originalUrl, GET_ONLY));

/**
 * What the service serves besides the API, routed by Express (it is not on the hot path): the docs
 * page, liveness and readiness, the 404 for a path that is nobody's, and the Error body for
 * whatever Express itself refuses. Every answer leaves through `sendReply`.
 */
const buildPagesApp = async ({ ready }: { ready: () => Promise<Readiness> }) => {
  const { default: express } = await import('express');
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  const docs = createDocsPage();
  const docsRoutes = express.Router();
  for (const file of DOCS_FILES) {
    docsRoutes
      .route(file)
      .get(page((req) => docs(file, req.headers['if-none-match'])))
      .all(onlyGet);
  }
  app.use('/docs', docsRoutes);
  app.route('/healthz').get(page(healthz)).all(onlyGet);
  app.route('/readyz').get(page((_req, exchange) => readyz(exchange, ready))).all(onlyGet);
  app.use(page((req) => nothingAt(req.method, req.originalUrl)));

  // Express knows an error handler by its four parameters.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const refused: ErrorRequestHandler = (error: unknown, req, _res, _next) => {
    const status = (error as { status?: unknown }).status;
    const code = typeof status === 'number' ? CLIENT_ERROR_CODES[status] : undefined;
    const reply: Reply = { error: code ? new TRPCError({ code, message: 'The request could not be read.' }) : toTrpcError(error) };
    void sendReply(exchangeOf(req), reply);
  };
  app.use(refused);
  return app;
};

/**
 * The pages, with Express loaded on the first request that is not the API's: a process that only
 * serves the API never holds Express and its dependencies in memory.
 */
export const createPagesApp = (options: { ready: () => Promise<Readiness> }) => {
  let app: Promise<express.Express> | undefined;
  return (exchange: Exchange): void => {
    app ??= buildPagesApp(options);
    app.then(
      (pages) => {
        pages(exchange.req, exchange.res);
      },
      (error: unknown) => sendReply(exchange, { error: toTrpcError(error) }),
    );
  };
};
