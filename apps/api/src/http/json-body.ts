import { TRPCError } from '@trpc/server';
import express, { type Request, type Response } from 'express';
import typeis from 'type-is';

export const BODY_LIMIT_BYTES = 64 * 1024;

// body-parser counts the bytes as they arrive, so the limit holds for chunked bodies too.
const parseJson = express.json({ limit: BODY_LIMIT_BYTES, strict: true, type: () => true });

export type JsonBody = { ok: true; value: Record<string, unknown> } | { ok: false; error: unknown };

/**
 * Reads a request's JSON object body. Any `application/json` media type is read (a `charset`
 * parameter included); other types, arrays and body-parser's failures (malformed JSON, too large,
 * unsupported charset or encoding) come back as errors for the error handler to answer.
 */
export const readJsonBody = (req: Request, res: Response): Promise<JsonBody> =>
  new Promise((resolve) => {
    if (typeis.is(req.headers['content-type'] ?? '', ['application/json']) === false) {
      resolve({ ok: false, error: new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the body as application/json.' }) });
      return;
    }
    parseJson(req, res, (error?: unknown) => {
      const body: unknown = req.body;
      if (error) resolve({ ok: false, error });
      else if (Array.isArray(body)) {
        resolve({ ok: false, error: new TRPCError({ code: 'BAD_REQUEST', message: 'The body must be a JSON object, not an array.' }) });
      } else resolve({ ok: true, value: (body ?? {}) as Record<string, unknown> });
    });
  });
