import { toErrorBody } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { Response } from 'express';

/** Answers with the Error body; the status comes from the code, as on every other path. */
export const sendError = (res: Response, code: TRPC_ERROR_CODE_KEY, message: string): void => {
  const body = toErrorBody(new TRPCError({ code, message }));
  res.status(body.status).json(body);
};
