import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { MAX_BATCH_SIZE, type Operation, TRPC_PREFIX, operations } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { Admissible } from '../admission/admit.js';
import type { RequestContext } from '../http/request-context.js';
import { readBody } from '../http/read-body.js';
import { JSON_TYPE, type Reply } from '../http/reply.js';
import { JSON_LINES_TYPE, TRPC_ACCEPT } from './json-lines.js';
import { trpcRefusal } from './replies.js';

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

/** A request to `/trpc` as read, each call spending one request of the key's quota. */
export interface TrpcRequest extends Admissible {
  context: RequestContext;
  /** None for HEAD, which tRPC answers before it reads anything, and the methods its adapter fails on. */
  calls: TrpcCall[];
  /** `?batch=1`: answered as a list (or as JSON lines), even of one call. */
  batch: boolean;
  /** What httpBatchStreamLink asks for: the calls' answers as JSON lines, each as soon as it is ready. */
  stream: boolean;
  /** Every call's input, by index: read once, when first asked for; a failure is every asking call's. */
  inputs(): Promise<unknown[]>;
}

/** A path a URL parser leaves as it is: no dot segments, encoded or not, nothing it would percent-encode. */
const PLAIN_PATH = /^(?![^]*%2e)(?:[A-Za-z0-9\-_~!$&'()*+,;=:@%]|\.(?![./]|$)|\/(?!\.\.?(?:\/|$)))*$/i;

/** The procedure path after the prefix, slashes around it trimmed, as tRPC's adapter cuts it. */
const procedurePathOf = (pathname: string) => pathname.replace(/^\/|\/$/g, '').slice(TRPC_PREFIX.length - 1).replace(/^\/|\/$/g, '');

/** Percent-decoded, or as it is when it is not valid percent-encoding (refused later, as tRPC refuses it). */
const decodedOrAsIs = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/**
 * The procedure path as tRPC's adapter reads it from a parsed URL, and the query. A path the URL
 * parser would change (dot segments, encoded or not; backslashes) names a procedure other than the
 * one it shows: `/trpc/../abcdcreatePet` would run createPet past a proxy rule on `/trpc/createPet`.
 * It is refused whole as naming no procedure, the path quoted as sent (docs/http-interface.md#trpc).
 */
const addressOf = (url: string) => {
  const queryStart = url.indexOf('?');
  const raw = queryStart === -1 ? url : url.slice(0, queryStart);
  const query = new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1));
  const pathname = PLAIN_PATH.test(raw) ? raw : new URL(raw, 'http://localhost').pathname;
  if (pathname !== raw && decodedOrAsIs(pathname) !== decodedOrAsIs(raw)) {
    throw new TRPCError({ code: 'NOT_FOUND', message: `No procedure found on path "${procedurePathOf(raw)}"` });
  }
  return { path: procedurePathOf(pathname), query, batch: query.get('batch') === '1' };
};

/** Whether a batch's decoded path names more than MAX_BATCH_SIZE procedures: counted up to one past it, without taking the path apart. */
const overTheLimit = (path: string) => {
  let names = 1;
  for (let at = path.indexOf(','); at !== -1 && names <= MAX_BATCH_SIZE; at = path.indexOf(',', at + 1)) names++;
  return names > MAX_BATCH_SIZE;
};

/** tRPC's rule for a streamed answer: `trpc-accept`, else an `Accept` naming JSON lines. */
const wantsStream = (req: IncomingMessage): boolean => {
  const trpcAccept = req.headers[TRPC_ACCEPT];
  if (trpcAccept !== undefined) return trpcAccept === JSON_LINES_TYPE;
  return (req.headers.accept ?? '').split(',').some((type) => type.trim() === JSON_LINES_TYPE);
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

const noInputs = () => Promise.resolve([]);

/** Methods Node can take but tRPC's adapter fails on with a 500: refused instead. */
const UNSERVED = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** The route a request is labelled with: its procedure, or only "a batch", so labels stay few. */
const BATCH_ROUTE = `${TRPC_PREFIX}/{batch}`;
const routeNames = new Map(Object.keys(operations).map((name) => [name, `${TRPC_PREFIX}/${name}`]));

const notBatched = () => new TRPCError({ code: 'BAD_REQUEST', message: 'Streaming requests must be batched (you can do a batch of 1)' });

const procedureAt = (path: string): Operation | undefined =>
  Object.hasOwn(operations, path) ? operations[path as keyof typeof operations] : undefined;

/** The procedure path, percent-decoded. */
const decodedPath = (path: string) => {
  if (!path.includes('%')) return path;
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
const bodyCall = (context: RequestContext, path: string, mediaType: string): TrpcRequest => {
  const { req } = context;
  if (req.method !== 'POST') throw new TRPCError({ code: 'METHOD_NOT_SUPPORTED', message: `Only POST requests are supported for ${mediaType} requests` });
  const inputs = once(async (): Promise<unknown[]> => {
    if (mediaType === 'application/octet-stream') return [Readable.toWeb(req)];
    const body = await readBody(req);
    // tRPC hands the procedure what Fetch's formData() makes of the body; the same call answers alike.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const form = await new Response(new Uint8Array(body), { headers: { 'content-type': req.headers['content-type'] ?? mediaType } }).formData().catch(asBadRequest);
    return [form];
  });
  if (wantsStream(req)) throw notBatched();
  return { context, calls: [{ index: 0, path, operation: procedureAt(path) }], batch: false, stream: false, inputs, quotaCost: 1 };
};

/**
 * Reads `req` as tRPC's adapter does before it makes a context, and refuses it whole where that
 * does, with its words: a path that is not valid percent-encoding, a body of a media type tRPC
 * does not take, a batch of more than MAX_BATCH_SIZE calls (tRPC's `maxBatchSize`), one mixing
 * queries and mutations, a streamed answer asked for calls that are not a batch; and, unlike
 * tRPC, a path the URL parser would change (`addressOf`). A batch's calls
 * are counted before anything is made for each, so a path of thousands of names costs no more
 * than one. What a call asks for is read only when a call asks for it.
 */
const readTrpcRequest = (context: RequestContext): TrpcRequest => {
  const { req } = context;
  const { path: encoded, query, batch } = addressOf(req.url ?? TRPC_PREFIX);
  const path = decodedPath(encoded);
  const mediaType = mediaTypeOf(req);
  if (mediaType === 'multipart/form-data' || mediaType === 'application/octet-stream') return bodyCall(context, path, mediaType);
  if (mediaType !== JSON_TYPE && req.method !== 'GET') {
    const contentType = req.headers['content-type'];
    throw new TRPCError({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: contentType === undefined ? 'Missing content-type header' : `Unsupported content-type "${contentType}`,
    });
  }
  if (batch && overTheLimit(path)) throw new TRPCError({ code: 'BAD_REQUEST', message: 'Batch call exceeds maximum size' });
  const paths = batch ? path.split(',') : [path];
  const calls = paths.map((each, index) => ({ index, path: each, operation: procedureAt(each) }));
  const types = [...new Set(calls.flatMap(({ operation }) => (operation ? [operation.type] : [])))];
  if (types.length > 1) throw new TRPCError({ code: 'BAD_REQUEST', message: `Cannot mix procedure types in call: ${types.join(', ')}` });
  const stream = wantsStream(req);
  if (stream && !batch) throw notBatched();
  return { context, calls, batch, stream, inputs: jsonInputs(req, query, batch, paths.length), quotaCost: calls.length };
};

/**
 * The tRPC transport's first step: the request read as tRPC's adapter reads it, labelled with its route,
 * each call spending one request of the key's quota; or its refusal whole. HEAD and the methods
 * tRPC's adapter fails on have no calls and spend one request.
 */
export const readTrpc = (context: RequestContext): TrpcRequest | Promise<Reply> => {
  const method = context.req.method ?? 'GET';
  if (method === 'HEAD' || UNSERVED.has(method)) return { context, calls: [], batch: false, stream: false, inputs: noInputs, quotaCost: 1 };
  let request: TrpcRequest;
  try {
    request = readTrpcRequest(context);
  } catch (error) {
    return Promise.resolve(trpcRefusal(context, error));
  }
  context.route = request.calls.length === 1 ? routeNames.get(request.calls[0]?.path ?? '') : BATCH_ROUTE;
  return request;
};
