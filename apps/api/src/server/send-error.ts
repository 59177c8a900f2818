import { toErrorBody } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { Response } from 'express';

/** Answers with the Error body of a tRPC error; the status comes from its code. */
export const sendErrorFor = (res: Response, error: TRPCError): void => {
  const body = toErrorBody(error);
  res.status(body.status).json(body);
};

export const sendError = (res: Response, code: TRPC_ERROR_CODE_KEY, message: string): void => {
  sendErrorFor(res, new TRPCError({ code, message }));
};
