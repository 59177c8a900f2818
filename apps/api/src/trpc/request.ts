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
  /** Every call's input, by index: read once, when first asked for; a failure is every asking call's. */
  inputs(): Promise<unknown[]>;
}

/** A request's address as tRPC reads it: the procedure paths after the prefix, and the query. */
export interface TrpcAddress {
  /** The paths as sent, before decoding: what its admission counts and its route is labelled with. */
  names: string[];
  /** `?batch=1`. */
  batch: boolean;
  /** The path after the prefix, slashes around it trimmed, as a URL parser leaves it. */
  path: string;
  query: URLSearchParams;
}

/** A path a URL parser leaves as it is: no dot segments, encoded or not, nothing it would percent-encode. */
const PLAIN_PATH = /^(?![^]*%2e)(?:[A-Za-z0-9\-_~!$&'()*+,;=:@%]|\.(?![./]|$)|\/(?!\.\.?(?:\/|$)))*$/i;

/** Read once per request: the path as tRPC's adapter reads it from a parsed URL, parsed only when it could differ. */
export const readTrpcAddress = (url: string): TrpcAddress => {
  const queryStart = url.indexOf('?');
  const raw = queryStart === -1 ? url : url.slice(0, queryStart);
  const query = new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1));
  const batch = query.get('batch') === '1';
  const names = raw.slice(TRPC_PREFIX.length + 1);
  const pathname = PLAIN_PATH.test(raw) ? raw : new URL(raw, 'http://localhost').pathname;
  const path = pathname.replace(/^\/|\/$/g, '').slice(TRPC_PREFIX.length - 1).replace(/^\/|\/$/g, '');
  return { names: batch ? names.split(',') : [names], batch, path, query };
};

const GET_OR_POST = ['GET', 'POST'] as const;
const GET_ONLY = ['GET'] as const;
const POST_ONLY = ['POST'] as const;

/** Which method a kind of procedure takes; queries take POST too when method override is on. */
export const acceptedMethods = (type: Operation['type'], allowMethodOverride: boolean): readonly string[] =>
  type === 'query' && allowMethodOverride ? GET_OR_POST : type === 'query' ? GET_ONLY : POST_ONLY;

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

/** The procedure path, percent-decoded. */
const decodedPath = (path: string) => {
  try {
    return decodeURIComponent(path);
  } catch (cause) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: `Invalid URL-encoding in path "${path}"`, cause });
  }
};

/** The calls' inputs from JSON: the `input` query parameter of a GET, or the body. */
const jsonInputs = (req: IncomingMessage, query: URLSearchParams, batch: boolean, count: number) =>
  once(async (): Promise<unknown[]> => {
    const text = req.method === 'GET' ? query.get('input') : (await readBody(req)).toString('utf8');
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
  const inputs = once(async (): Promise<unknown[]> => {
    if (mediaType === 'application/octet-stream') return [Readable.toWeb(req)];
    const body = await readBody(req);
    // tRPC hands the procedure what Fetch's formData() makes of the body; the same call answers alike.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const form = await new Response(new Uint8Array(body), { headers: { 'content-type': req.headers['content-type'] ?? mediaType } }).formData().catch(asBadRequest);
    return [form];
  });
  return { calls: [{ index: 0, path, operation: procedureAt(path) }], batch: false, stream: wantsStream(req), inputs };
};

/** The calls of `req` and how to read their inputs, as tRPC's content-type handlers read them. */
const callsOf = (req: IncomingMessage, address: TrpcAddress): TrpcRequest => {
  const path = decodedPath(address.path);
  const mediaType = mediaTypeOf(req);
  if (mediaType === 'multipart/form-data' || mediaType === 'application/octet-stream') return bodyCall(req, path, mediaType);
  if (mediaType !== 'application/json' && req.method !== 'GET') {
    const contentType = req.headers['content-type'];
    throw new TRPCError({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: contentType === undefined ? 'Missing content-type header' : `Unsupported content-type "${contentType}`,
    });
  }
  const { batch, query } = address;
  const paths = batch ? path.split(',') : [path];
  if (batch && paths.length > MAX_BATCH_SIZE) throw new TRPCError({ code: 'BAD_REQUEST', message: 'Batch call exceeds maximum size' });
  const calls = paths.map((each, index) => ({ index, path: each, operation: procedureAt(each) }));
  const types = [...new Set(calls.flatMap(({ operation }) => (operation ? [operation.type] : [])))];
  if (types.length > 1) throw new TRPCError({ code: 'BAD_REQUEST', message: `Cannot mix procedure types in call: ${types.join(', ')}` });
  return { calls, batch, stream: wantsStream(req), inputs: jsonInputs(req, query, batch, paths.length) };
};

/** Reads `req` as tRPC does; throws the TRPCError tRPC answers for a request it cannot take. */
export const readTrpcRequest = (req: IncomingMessage, address: TrpcAddress): TrpcRequest => {
  const request = callsOf(req, address);
  if (request.stream && !request.batch) throw new TRPCError({ code: 'BAD_REQUEST', message: 'Streaming requests must be batched (you can do a batch of 1)' });
  return request;
};
