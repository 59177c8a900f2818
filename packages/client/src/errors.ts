import type { AppRouter } from './generated/router-types.js';
import { TRPCClientError } from '@trpc/client';

/**
 * Narrows a failed call's error; `error.data.code` then holds the same code a REST client reads
 * from the Error body (`NOT_FOUND`, `BAD_REQUEST`, …) and `error.data.httpStatus` its status.
 */
export const isPetstoreError = (error: unknown): error is TRPCClientError<AppRouter> =>
  error instanceof TRPCClientError;
