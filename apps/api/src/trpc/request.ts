import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { MAX_BATCH_SIZE, type Operation, TRPC_PREFIX, operations } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import { readBody } from '../exchange/read-body.js';

/**
 * A request to `/trpc` as tRPC's own HTTP adapters read it (`resolveResponse` and its content-type
 * handlers in @trpc/server 11): which procedures it calls, whether as a batch and as JSON lines,
 * and each call's input, read once, only when a call asks for it. What the adapters refuse before
 * any call runs is a `TRPCError` of the whole request, with their words.
 */

/** One call of a request: its position, the procedure path it names, and that procedure's operation if there is one. */
export interface TrpcCall {
  index: number;
  path: string;
  operation: Operation | undefined;
}

export interface TrpcRequest {
  calls: TrpcCall[];
  /** `?batch=1`: answered as a list (or as JSON lines), even of one call. */
  batch: boolean;
  /** What httpBatchStreamLink asks for: the calls' answers as JSON lines, each as soon as it is ready. */
  stream: boolean;
  /** The input of the call at `index`; the first call to ask reads them all, a failure is every asking call's. */
  input(index: number): Promise<unknown>;
}

/**
 * The procedure paths a request names, as sent, and whether as a batch: before the request is read,
 * what its admission spends and what its route is labelled.
 */
export const namedCalls = (url: string): { names: string[]; batch: boolean } => {
  const queryStart = url.indexOf('?');
  const path = (queryStart === -1 ? url : url.slice(0, queryStart)).slice(TRPC_PREFIX.length + 1);
  const batch = queryStart !== -1 && new URLSearchParams(url.slice(queryStart + 1)).get('batch') === '1';
  return { names: batch ? path.split(',') : [path], batch };
};

/** Which method a kind of procedure takes; queries take POST too when method override is on. */
export const acceptedMethods = (type: Operation['type'], allowMethodOverride: boolean): readonly string[] =>
  type === 'query' && allowMethodOverride ? ['GET', 'POST'] : type === 'query' ? ['GET'] : ['POST'];

/** tRPC's rule for a streamed answer: `trpc-accept`, else an `Accept` naming JSON lines. */
export const wantsStream = (req: IncomingMessage): boolean => {
  const trpcAccept = req.headers['trpc-accept'];
  if (trpcAccept !== undefined) return trpcAccept === 'application/jsonl';
  return (req.headers.accept ?? '').split(',').some((type) => type.trim() === 'application/jsonl');
};

/** The media type, lower case, without parameters; tRPC compares it so. */
const mediaTypeOf = (req: IncomingMessage) => req.headers['content-type']?.toLowerCase().split(';', 1)[0]?.trim();

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Once, when first asked: a later asker gets the same answer, or the same refusal. */
const once = <T>(read: () => Promise<T>) => {
  let pending: Promise<T> | undefined;
  return () => (pending ??= read());
};

/** Parse failures are the client's: tRPC answers them 400 with the parser's own message. */
const asBadRequest = (cause: unknown): never => {
  if (cause instanceof TRPCError) throw cause;
  throw new TRPCError({ code: 'BAD_REQUEST', message: cause instanceof Error ? cause.message : 'Invalid input', cause });
};

const procedureAt = (path: string): Operation | undefined =>
  Object.hasOwn(operations, path) ? operations[path as keyof typeof operations] : undefined;

/** The procedure path after `/trpc/`, slashes around it trimmed, percent-decoded. */
const procedurePath = (pathname: string) => {
  const path = pathname.replace(/^\/|\/$/g, '').slice(TRPC_PREFIX.length - 1).replace(/^\/|\/$/g, '');
  try {
    return decodeURIComponent(path);
  } catch (cause) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: `Invalid URL-encoding in path "${path}"`, cause });
  }
};

/** The calls' inputs from JSON: the `input` query parameter of a GET, or the body. */
const jsonInputs = (req: IncomingMessage, url: URL, batch: boolean, count: number) =>
  once(async () => {
    const text = req.method === 'GET' ? url.searchParams.get('input') : await readBody(req).then((body) => body.toString('utf8'));
    let inputs: unknown;
    try {
      inputs = text ? JSON.parse(text) : undefined;
    } catch (cause) {
      asBadRequest(cause);
    }
    if (inputs === undefined) return [];
    if (!batch) return [inputs];
    if (!isObject(inputs)) throw new TRPCError({ code: 'BAD_REQUEST', message: '"input" needs to be an object when doing a batch call' });
    return Array.from({ length: count }, (_, index) => inputs[index]);
  });

/** One call with a body tRPC hands to the procedure as it comes: FormData, or the raw bytes as a stream. */
const bodyCall = (req: IncomingMessage, path: string, mediaType: string): TrpcRequest => {
  if (req.method !== 'POST') throw new TRPCError({ code: 'METHOD_NOT_SUPPORTED', message: `Only POST requests are supported for ${mediaType} requests` });
  const input = once(async () => {
    if (mediaType === 'application/octet-stream') return Readable.toWeb(req);
    const body = await readBody(req);
    // tRPC hands the procedure what Fetch's formData() makes of the body; the same call answers alike.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    return new Response(new Uint8Array(body), { headers: { 'content-type': req.headers['content-type'] ?? mediaType } }).formData().catch(asBadRequest);
  });
  return { calls: [{ index: 0, path, operation: procedureAt(path) }], batch: false, stream: wantsStream(req), input };
};

/** The calls of `req` and how to read their inputs, as tRPC's content-type handlers read them. */
const callsOf = (req: IncomingMessage): TrpcRequest => {
  const url = new URL(req.url ?? TRPC_PREFIX, 'http://localhost');
  const path = procedurePath(url.pathname);
  const mediaType = mediaTypeOf(req);
  if (mediaType === 'multipart/form-data' || mediaType === 'application/octet-stream') return bodyCall(req, path, mediaType);
  if (mediaType !== 'application/json' && req.method !== 'GET') {
    const contentType = req.headers['content-type'];
    throw new TRPCError({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: contentType === undefined ? 'Missing content-type header' : `Unsupported content-type "${contentType}`,
    });
  }
  const batch = url.searchParams.get('batch') === '1';
  const paths = batch ? path.split(',') : [path];
  if (batch && paths.length > MAX_BATCH_SIZE) throw new TRPCError({ code: 'BAD_REQUEST', message: 'Batch call exceeds maximum size' });
  const calls = paths.map((each, index) => ({ index, path: each, operation: procedureAt(each) }));
  const types = [...new Set(calls.flatMap(({ operation }) => (operation ? [operation.type] : [])))];
  if (types.length > 1) throw new TRPCError({ code: 'BAD_REQUEST', message: `Cannot mix procedure types in call: ${types.join(', ')}` });
  const inputs = jsonInputs(req, url, batch, paths.length);
  return { calls, batch, stream: wantsStream(req), input: async (index) => (await inputs())[index] };
};

/** Reads `req` as tRPC does; throws the TRPCError tRPC answers for a request it cannot take. */
export const readTrpcRequest = (req: IncomingMessage): TrpcRequest => {
  const request = callsOf(req);
  if (request.stream && !request.batch) throw new TRPCError({ code: 'BAD_REQUEST', message: 'Streaming requests must be batched (you can do a batch of 1)' });
  return request;
};
