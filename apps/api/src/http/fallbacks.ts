import { TRPCError } from '@trpc/server';
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

interface BodyParserError {
  status?: number;
  type?: string;
}

const BODY_ERRORS: Record<string, [code: 'BAD_REQUEST' | 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE', message: string]> = {
  'entity.parse.failed': ['BAD_REQUEST', 'The body is not valid JSON.'],
  'entity.too.large': ['PAYLOAD_TOO_LARGE', 'The body is larger than 64 KiB.'],
  'charset.unsupported': ['UNSUPPORTED_MEDIA_TYPE', 'The body must be JSON encoded as UTF-8.'],
  'encoding.unsupported': ['UNSUPPORTED_MEDIA_TYPE', 'The body uses an unsupported Content-Encoding.'],
  'request.aborted': ['BAD_REQUEST', 'The body ended before its announced length.'],
  'request.size.invalid': ['BAD_REQUEST', 'The body does not match its Content-Length.'],
};

/**
 * The last handler: our own 4xx errors and body-parser's failures become their Error body;
 * anything else is a crash, logged in full and answered with a 500 that says nothing of its cause.
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
  const known = BODY_ERRORS[(error as BodyParserError).type ?? ''];
  if (known) {
    // The rest of an oversized or broken body is never read: close rather than drain it.
    res.setHeader('Connection', 'close');
    sendError(res, ...known);
    return;
  }
  req.log.error({ err: error }, 'request failed');
  sendError(res, 'INTERNAL_SERVER_ERROR', 'Internal server error');
};
