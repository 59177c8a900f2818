import type { IncomingMessage } from 'node:http';
import { type Context, type Operation, callOperation, operations, settle, toTrpcError } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { Admit } from '../admission/admit.js';
import { insufficientScopeChallenge } from '../admission/admit.js';
import type { Exchange, FlatHeaders } from '../exchange/exchange.js';
import { readBodyText } from '../exchange/read-body.js';
import { type CallOutcome, type Reply, methodNotAllowed } from '../exchange/reply.js';
import { MAX_BATCH_SIZE, resolveWithTrpc } from './resolver.js';

export const TRPC_PREFIX = '/trpc';

/** Methods a Fetch `Request` cannot carry: tRPC's adapter fails on them with a 500; they are refused instead. */
const UNFETCHABLE = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** Which HTTP method calls which kind of procedure, as tRPC's HTTP adapters have it. */
const METHOD_OF = { query: 'GET', mutation: 'POST' } as const;

/** The route a request is labelled with: its procedure, or only "a batch", so labels stay few. */
const BATCH_ROUTE = `${TRPC_PREFIX}/{batch}`;
const routeNames = new Map(Object.keys(operations).map((name) => [name, `${TRPC_PREFIX}/${name}`]));

/** tRPC's rule for a streamed answer (`httpBatchStreamLink`): `trpc-accept`, else an `Accept` naming JSON lines. */
const wantsStream = (req: IncomingMessage) => {
  const trpcAccept = req.headers['trpc-accept'];
  if (trpcAccept !== undefined) return trpcAccept === 'application/jsonl';
  return (req.headers.accept ?? '').split(',').some((type) => type.trim() === 'application/jsonl');
};

/** tRPC's test for a JSON body: the media type alone, any parameters. */
const isJson = (contentType: string | undefined) => contentType?.toLowerCase().split(';', 1)[0]?.trim() === 'application/json';

interface Parsed {
  names: string[];
  batch: boolean;
  /** The `input` parameter of a GET. */
  input: string | null;
}

const parse = (url: string): Parsed => {
  const queryStart = url.indexOf('?');
  const query = new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1));
  return {
    names: url.slice(TRPC_PREFIX.length + 1, queryStart === -1 ? undefined : queryStart).split(','),
    batch: query.get('batch') === '1',
    input: query.get('input'),
  };
};

/**
 * The operations of a plain request, the kind `httpLink` and `httpBatchLink` send: GET queries or
 * POST mutations with a JSON body, each name a known procedure of the method's kind, a batch within
 * the limit. Undefined for anything else, which tRPC's own resolver answers.
 */
const plainCalls = (req: IncomingMessage, { names, batch }: Parsed): Operation[] | undefined => {
  const { method } = req;
  if (wantsStream(req) || (method !== 'GET' && method !== 'POST')) return undefined;
  if (batch ? names.length > MAX_BATCH_SIZE : names.length !== 1) return undefined;
  const contentType = req.headers['content-type'];
  if (method === 'POST' ? !isJson(contentType) : contentType !== undefined && !isJson(contentType)) return undefined;
  const found: Operation[] = [];
  for (const name of names) {
    const operation = Object.hasOwn(operations, name) ? operations[name as keyof typeof operations] : undefined;
    if (operation === undefined || METHOD_OF[operation.type] !== method) return undefined;
    found.push(operation);
  }
  return found;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The calls' inputs, read once and only when a call asks for its own (a call refused for its scope
 * never reads the body), as tRPC reads them: a lone call's input is the whole JSON, a batch's is an
 * object keyed by call index; a failure is a 400 for every call that asks.
 */
const inputsOf = (readText: () => Promise<string | null>, batch: boolean) => {
  let inputs: Promise<unknown[] | Record<string, unknown>> | undefined;
  const read = async () => {
    const text = await readText();
    let value: unknown;
    try {
      value = text ? JSON.parse(text) : undefined;
    } catch (cause) {
      throw new TRPCError({ code: 'BAD_REQUEST', message: cause instanceof Error ? cause.message : 'Invalid input', cause });
    }
    if (!batch || value === undefined) return [value];
    if (!isObject(value)) throw new TRPCError({ code: 'BAD_REQUEST', message: '"input" needs to be an object when doing a batch call' });
    return value;
  };
  return async (index: number): Promise<unknown> => {
    const all = await (inputs ??= read());
    return Array.isArray(all) ? (index === 0 ? all[0] : undefined) : all[index];
  };
};

export interface TrpcTransportDependencies {
  admit: Admit;
  /** Queries may also come as POST (tRPC's `allowMethodOverride`). */
  allowMethodOverride: boolean;
  /** Calls an operation: `callOperation`, or it wrapped by metrics or tracing. */
  call?: typeof callOperation;
}

/**
 * `/trpc`, answering as tRPC's own node-http adapter does. The key and the quota come first, as on
 * REST (each call of a batch spends one request). Plain calls, the ones `httpLink` and
 * `httpBatchLink` make, take a short path that reads node's request directly; every other request
 * (streamed batches, POST queries, HEAD, anything malformed) goes to tRPC's own resolver. The
 * differential test holds both to tRPC's adapter.
 */
export const createTrpcTransport = ({ admit, allowMethodOverride, call = callOperation }: TrpcTransportDependencies) => {
  const runPlain = async (exchange: Exchange, found: Operation[], parsed: Parsed, ctx: Context, admitted: FlatHeaders): Promise<Reply> => {
    const { req } = exchange;
    const inputOf = inputsOf(req.method === 'GET' ? () => Promise.resolve(parsed.input) : () => readBodyText(req), parsed.batch);
    let challenge: FlatHeaders = [];
    const calls = await Promise.all(
      found.map((operation, index) =>
        settle(() => call(operation, ctx, () => inputOf(index))).then(
          (data): CallOutcome => ({ data }),
          (cause: unknown): CallOutcome => {
            const error = toTrpcError(cause);
            // One challenge per response: a batch refused several scopes names the first.
            if (error.code === 'FORBIDDEN' && challenge.length === 0) challenge = ['WWW-Authenticate', insufficientScopeChallenge(operation.meta.scope)];
            return { error };
          },
        ),
      ),
    );
    return { calls, batch: parsed.batch, headers: challenge.length === 0 ? admitted : [...admitted, ...challenge] };
  };

  return async (exchange: Exchange): Promise<Reply> => {
    const { req } = exchange;
    const parsed = parse(req.url ?? TRPC_PREFIX);
    const { names, batch } = parsed;
    exchange.route = names.length === 1 ? routeNames.get(names[0] ?? '') : BATCH_ROUTE;

    // A batch over the limit runs nothing, so it spends one request rather than one per call.
    const admission = await admit(req, names.length > MAX_BATCH_SIZE ? 1 : names.length);
    if (!admission.admitted) {
      const { error, headers } = admission;
      if (wantsStream(req)) return resolveWithTrpc(exchange, { error, headers, allowMethodOverride });
      return { calls: Array.from({ length: batch ? names.length : 1 }, () => ({ error })), batch, headers };
    }
    const found = plainCalls(req, parsed);
    if (found) return runPlain(exchange, found, parsed, admission.ctx, admission.headers);
    if (UNFETCHABLE.has(req.method ?? '')) return methodNotAllowed(req.method, req.url, 'GET, HEAD, POST', admission.headers);

    // tRPC reads a body itself, but cannot decode one; the service's reader does (and refuses what it cannot).
    const decoded = req.headers['content-encoding'] === undefined ? {} : await readBodyText(req).then((body) => ({ body }), (error: unknown) => ({ error: toTrpcError(error) }));
    return resolveWithTrpc(exchange, { ...decoded, ctx: admission.ctx, headers: admission.headers, allowMethodOverride });
  };
};
