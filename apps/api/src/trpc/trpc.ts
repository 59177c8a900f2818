import type { ServerResponse } from 'node:http';
import { type AuthedContext, type Context, type Operation, authorize, callOperation } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import { type Admission, type Transport, insufficientScopeChallenge } from '../admission/admit.js';
import type { FlatHeaders } from '../http/request-context.js';
import { methodNotAllowed } from '../http/failure.js';
import type { Reply } from '../http/reply.js';
import { type CallOutcome, callsReply, streamReply, trpcRefusal } from './replies.js';
import { type TrpcCall, type TrpcRequest, readTrpc } from './request.js';

/** Aborted when the connection closes before the whole answer went out: the client left. */
const abortWhenClientLeaves = (res: ServerResponse): AbortSignal => {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new TRPCError({ code: 'CLIENT_CLOSED_REQUEST', message: 'The client went away before its answer.' }));
  });
  return controller.signal;
};

const GET_OR_POST = ['GET', 'POST'] as const;
const GET_ONLY = ['GET'] as const;
const POST_ONLY = ['POST'] as const;

/** Which method a kind of procedure takes; queries take POST too when method override is on. */
const acceptedMethods = (type: Operation['type'], allowMethodOverride: boolean): readonly string[] =>
  type === 'query' && allowMethodOverride ? GET_OR_POST : type === 'query' ? GET_ONLY : POST_ONLY;

/** What `/trpc` takes: HEAD, and GET and POST, as the procedures' types take them. */
const TRPC_METHODS = 'GET, HEAD, POST';

/** A call as it stands before it runs: its operation and the context it runs with, or its refusal. */
type CheckedCall = { operation: Operation; ctx: AuthedContext } | { refusal: TRPCError };

export interface TrpcTransportDependencies {
  /** Queries may also come as POST (tRPC's `allowMethodOverride`). */
  allowMethodOverride: boolean;
  /** Calls an operation: `callOperation`, or it wrapped by metrics or tracing. */
  call?: typeof callOperation;
}

/**
 * `/trpc`, answering as tRPC's own node-http adapter does, in every mode `@trpc/client` uses:
 * single calls and batches, GET and POST, JSON lines for httpBatchStreamLink, POST queries when
 * method override is on. First what tRPC's adapter refuses of a request as a whole, before it makes
 * a context (a path it cannot decode, a media type it does not take, a batch over its size or
 * mixing queries and mutations), each at the cost of one refusal (request.ts); then the front
 * door's admission, the key and the quota, as on REST (each call of a batch spends one request);
 * then here each call: its procedure and method, the key's scope, its input (the body read once,
 * only when a call asks for it), the operation.
 */
export const createTrpcTransport = ({ allowMethodOverride, call = callOperation }: TrpcTransportDependencies): Transport<TrpcRequest> => {
  /**
   * What a call meets before it runs, in tRPC's order: its procedure (404), a method the procedure
   * takes (405), a key with the procedure's scope (401, 403).
   */
  const checkCall = (method: string, { path, operation }: TrpcCall, ctx: Context): CheckedCall => {
    if (!operation) return { refusal: new TRPCError({ code: 'NOT_FOUND', message: `No procedure found on path "${path}"` }) };
    if (!acceptedMethods(operation.type, allowMethodOverride).includes(method)) {
      return { refusal: new TRPCError({ code: 'METHOD_NOT_SUPPORTED', message: `Unsupported ${method}-request to ${operation.type} procedure at path "${path}"` }) };
    }
    try {
      return { operation, ctx: authorize(ctx, operation.meta.scope) };
    } catch (error) {
      if (error instanceof TRPCError) return { refusal: error };
      throw error;
    }
  };

  /** A call's answer: its result, or its failure, which is its answer and never the request's. */
  const outcomeOf = (pending: Promise<unknown>): Promise<CallOutcome> =>
    pending.then(
      (data) => ({ data }),
      (error: unknown) => ({ error }),
    );

  const answer = async (request: TrpcRequest, admission: Admission): Promise<Reply> => {
    const { context } = request;
    const method = context.req.method ?? 'GET';
    if (!admission.admitted) {
      const { error, headers } = admission;
      const refusals = Array.from({ length: request.batch ? request.quotaCost : 1 }, () => ({ error }));
      // httpBatchStreamLink reads every answer but a 200 as one JSON body, not one per call.
      if (request.stream) return streamReply(context, refusals.map((refusal) => Promise.resolve(refusal)), headers);
      return callsReply(context, refusals, request.batch, headers);
    }
    if (request.calls.length === 0) {
      // tRPC's own answer to HEAD, which varies with nothing.
      if (method === 'HEAD') return { kind: 'empty', status: 204, headers: admission.headers };
      return trpcRefusal(context, methodNotAllowed(method, context.req.url, TRPC_METHODS), [...admission.headers, 'Allow', TRPC_METHODS]);
    }
    const headers: FlatHeaders = [...admission.headers];
    // A streamed batch answers for as long as its slowest call: what has not started when its client leaves never does.
    const ctx = request.stream ? { ...admission.ctx, signal: abortWhenClientLeaves(context.res) } : admission.ctx;
    const through = request.calls.map((each) => checkCall(method, each, ctx));
    for (const [index, each] of through.entries()) {
      const operation = request.calls[index]?.operation;
      if (!('refusal' in each) || !operation) continue;
      if (each.refusal.code === 'METHOD_NOT_SUPPORTED' && !headers.includes('Allow')) {
        headers.push('Allow', acceptedMethods(operation.type, allowMethodOverride).join(', '));
      }
      // One challenge per response: a batch refused several scopes names the first.
      if (each.refusal.code === 'FORBIDDEN' && !headers.includes('WWW-Authenticate')) {
        headers.push('WWW-Authenticate', insufficientScopeChallenge(operation.meta.scope));
      }
    }
    // The inputs are read once a call is let through, so a request whose calls are all refused
    // never has its body read; inputs that cannot be read are the failure of every call let through.
    let inputs: unknown[] = [];
    let unreadable: { error: unknown } | undefined;
    if (through.some((each) => !('refusal' in each))) {
      try {
        inputs = await request.inputs();
      } catch (error) {
        unreadable = { error };
      }
    }
    // The calls let through run one after the other in this turn; the others are answered already.
    const outcomes = through.map((each, index): Promise<CallOutcome> =>
      'refusal' in each
        ? Promise.resolve({ error: each.refusal })
        : unreadable
          ? Promise.resolve(unreadable)
          : outcomeOf(call(each.operation, each.ctx, inputs[index])),
    );
    // A streamed batch answers each call as it settles; a plain one once all have.
    if (request.stream) return streamReply(context, outcomes, headers);
    return callsReply(context, await Promise.all(outcomes), request.batch, headers);
  };
  return { read: readTrpc, answer, refuse: trpcRefusal };
};
