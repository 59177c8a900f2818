import type { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { z } from 'zod';

/** The body of every error response on the REST interface. */
export const ErrorBody = z
  .strictObject({
    code: z.string().meta({
      description:
        'Machine-readable error code, one of the tRPC error codes: BAD_REQUEST, UNAUTHORIZED, ' +
        'NOT_FOUND, METHOD_NOT_SUPPORTED, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, ' +
        'TOO_MANY_REQUESTS, INTERNAL_SERVER_ERROR.',
      examples: ['NOT_FOUND'],
    }),
    message: z.string().meta({ description: 'Human-readable description.' }),
    status: z.int().min(400).max(599).meta({ description: 'The HTTP status code of the response.' }),
  })
  .meta({ id: 'Error', description: 'The body of every error response.' });
export type ErrorBody = z.infer<typeof ErrorBody>;

const INTERNAL_ERROR_MESSAGE = 'The server could not handle the request.';

/** The Error body for any error. A crash's own message may hold internals, so it is never shown. */
export const toErrorBody = (error: TRPCError): ErrorBody => ({
  code: error.code,
  message: error.code === 'INTERNAL_SERVER_ERROR' ? INTERNAL_ERROR_MESSAGE : error.message,
  status: getHTTPStatusCodeFromError(error),
});
