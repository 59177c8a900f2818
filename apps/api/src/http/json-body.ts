import express, { type RequestHandler } from 'express';
import typeis from 'type-is';
import { sendError } from './send-error.js';

export const BODY_LIMIT_BYTES = 64 * 1024;

// body-parser counts the bytes as they arrive, so the limit holds for chunked bodies too.
const parseJson = express.json({ limit: BODY_LIMIT_BYTES, strict: true, type: () => true });

const requireJsonMediaType: RequestHandler = (req, res, next) => {
  if (typeis.is(req.headers['content-type'] ?? '', ['application/json']) === false) {
    sendError(res, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
    return;
  }
  next();
};

/**
 * The adapter spreads the body into the procedure's input object, so an array would arrive as
 * `{ "0": … }`; it is refused here while it still looks like what was sent.
 */
const requireJsonObject: RequestHandler = (req, res, next) => {
  if (Array.isArray(req.body)) {
    sendError(res, 'BAD_REQUEST', 'The body must be a JSON object, not an array.');
    return;
  }
  next();
};

/**
 * Reads a JSON body for the OpenAPI adapter. The adapter's own reader only parses an exact
 * `application/json` (a charset parameter makes it skip the body) and answers parse errors in its
 * own words; here any `application/json` media type is read and errors reach the Error handler.
 * body-parser always sets `req.body` (undefined without a body), so the adapter never reads again.
 */
export const jsonBody: RequestHandler[] = [requireJsonMediaType, parseJson, requireJsonObject];
