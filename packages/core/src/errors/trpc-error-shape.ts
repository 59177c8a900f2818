import type { TRPCError } from '@trpc/server';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { toErrorBody } from './error-body.js';

/**
 * The same error in tRPC's envelope (a JSON-RPC code, the message, and `data` carrying the Error
 * body's code and status), for the router's error formatter and the tRPC transport alike. The
 * code is the error's own, the one the Error body holds, typed as tRPC's union of codes so that a
 * client's `data.code` is too.
 */
export const toTrpcErrorShape = (error: TRPCError) => {
  const body = toErrorBody(error);
  return {
    message: body.message,
    code: TRPC_ERROR_CODES_BY_KEY[error.code],
    data: { code: error.code, httpStatus: body.status },
  };
};
export type TrpcErrorShape = ReturnType<typeof toTrpcErrorShape>;
