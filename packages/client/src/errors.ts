import type { AppRouter, ErrorShape } from './generated/router-types.js';
import { TRPCClientError } from '@trpc/client';

/** A failed tRPC call's error: `data.code` is a `PetstoreErrorCode`, `data.httpStatus` the status. */
export type PetstoreClientError = TRPCClientError<AppRouter>;

/** What a failed tRPC call's `error.data` holds: the Error body's code and status. */
export type PetstoreErrorData = ErrorShape['data'];

/**
 * Narrows a failed call's error; `error.data.code` then holds the same code a REST client reads
 * from the Error body (`NOT_FOUND`, `BAD_REQUEST`, …) and `error.data.httpStatus` its status.
 */
export const isPetstoreError = (error: unknown): error is PetstoreClientError => error instanceof TRPCClientError;

/**
 * The `X-Request-Id` of the response a failed call got, to quote when asking about it (the
 * service logs every request under it); undefined when no response came.
 */
export const requestIdOf = (error: PetstoreClientError): string | undefined => {
  const response = error.meta?.response as Response | undefined;
  return response?.headers.get('x-request-id') ?? undefined;
};
