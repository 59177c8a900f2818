import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { sendError, sendErrorFor } from './send-error.js';

const MAX_ECHOED_PATH = 200;

const describeRequest = (method: string, originalUrl: string) => {
  const path = originalUrl.split('?', 1)[0] ?? '';
  return `${method} ${path.length > MAX_ECHOED_PATH ? `${path.slice(0, MAX_ECHOED_PATH)}…` : path}`;
};

export const notFound: RequestHandler = (req, res) => {
  sendError(res, 'NOT_FOUND', `There is nothing at ${describeRequest(req.method, req.originalUrl)}.`);
};

/** 405 with the `Allow` header RFC 9110 requires. */
export const methodNotAllowed = (methods: readonly string[]): RequestHandler => {
  const allow = methods.join(', ');
  return (req, res) => {
    res.setHeader('Allow', allow);
    sendError(
      res,
      'METHOD_NOT_SUPPORTED',
      `${req.method} is not supported on ${req.originalUrl.split('?', 1)[0] ?? ''}; use ${allow}.`,
    );
  };
};

/**
 * The last handler of the Express app: our own 4xx errors become their Error body; anything else
 * is a crash, logged in full and answered with a 500 that says nothing of its cause.
 */
export const errorHandler: ErrorRequestHandler = (error: unknown, req, res, next) => {
  if (res.headersSent) {
    next(error);
    return;
  }
  if (error instanceof TRPCError && error.code !== 'INTERNAL_SERVER_ERROR') {
    sendErrorFor(res, error);
    return;
  }
  // A library's error that carries a 4xx status (a path Express cannot decode) is the client's.
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    sendError(res, CLIENT_ERROR_CODES[status] ?? 'BAD_REQUEST', 'The request could not be read.');
    return;
  }
  req.log.error({ err: error }, 'request failed');
  sendError(res, 'INTERNAL_SERVER_ERROR', 'Internal server error');
};

const CLIENT_ERROR_CODES: Partial<Record<number, TRPC_ERROR_CODE_KEY>> = {
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};
