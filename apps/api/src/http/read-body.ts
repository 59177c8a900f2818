import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { TRPCError } from '@trpc/server';
import { JSON_TYPE } from './reply.js';

/** The largest request body taken, counted as bytes arrive, after decompression too. */
export const BODY_LIMIT_BYTES = 64 * 1024;
export const BODY_LIMIT_TEXT = `${BODY_LIMIT_BYTES / 1024} KiB`;

const DECODERS: Record<string, () => Readable & NodeJS.WritableStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * How many times its compressed size a body may grow to as it is decompressed. A body the service
 * takes is a few hundred bytes of JSON, which no compression shrinks 100-fold; a body that grows
 * more is built to make the service work, however small it stays.
 */
export const MAX_DECOMPRESSION_RATIO = 100;

const malformed = () => new TRPCError({ code: 'BAD_REQUEST', message: 'The body is not valid HTTP: its chunks are not framed as HTTP/1.1 requires.' });

const tooLarge = () => new TRPCError({ code: 'PAYLOAD_TOO_LARGE', message: `The body is larger than ${BODY_LIMIT_TEXT}.` });

type Read = Buffer | 'too-large' | 'too-dense' | 'too-slow' | 'malformed' | 'broken';

/**
 * What Node reports when a request has not arrived whole within the server's `requestTimeout`;
 * server.ts hands it to the request still being read, as an 'error' on it.
 */
export const REQUEST_TIMEOUT = 'ERR_HTTP_REQUEST_TIMEOUT';

/**
 * Requests whose body Node's parser could not read (a chunk's framing broken, such as line ends
 * without CR): nothing more of it will come. Node says so only to the server (server.ts), often
 * before the body's reader has started.
 */
const unparseable = new WeakSet<IncomingMessage>();

/** Node could not parse the rest of `req`'s body: its reader answers 400 now, or as soon as it starts. */
export const bodyUnparseable = (req: IncomingMessage, error: Error): void => {
  unparseable.add(req);
  if (req.listenerCount('error') > 0) req.emit('error', error);
};

/** Whether more of `req`'s body may still arrive: not once Node has given up parsing it. */
export const bodyMayArrive = (req: IncomingMessage): boolean => !req.complete && !unparseable.has(req);

/**
 * Reads a body to its end, refusing it as soon as it passes the limit, compressed (`req`'s own
 * bytes) or decompressed (`source`'s), as soon as it grows past MAX_DECOMPRESSION_RATIO, and once
 * Node says the request is past its time. That bound is Node's, kept by its parser for every
 * request at no cost to one that arrives in time (docs/decisions/2026-11-27-every-request-bounded.md).
 */
const collect = (req: IncomingMessage, source: Readable) =>
  new Promise<Read>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let arrived = 0;
    let settled = false;
    const settle = (outcome: Read) => {
      if (settled) return;
      settled = true;
      if (!Buffer.isBuffer(outcome)) {
        req.unpipe();
        source.pause();
      }
      resolve(outcome);
    };
    const failed = (error: Error & { code?: string }) => {
      settle(error.code === REQUEST_TIMEOUT ? 'too-slow' : unparseable.has(req) ? 'malformed' : 'broken');
    };
    if (source !== req) {
      req.on('data', (chunk: Buffer) => {
        arrived += chunk.length;
        if (arrived > BODY_LIMIT_BYTES) settle('too-large');
      });
      req.once('error', failed);
    }
    source.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) settle('too-large');
      else if (source !== req && size > MAX_DECOMPRESSION_RATIO * arrived) settle('too-dense');
      else chunks.push(chunk);
    });
    source.once('end', () => {
      settle(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    });
    source.once('error', failed);
    // A client that goes away mid-body ends the stream without 'end'; after 'end' this is a no-op.
    source.once('close', () => {
      settle('broken');
    });
  });

/** Requests that sent `Expect: 100-continue` and have not been invited to send their body yet. */
const awaitingContinue = new WeakMap<IncomingMessage, ServerResponse>();

/**
 * `req` waits for `100 Continue` before it sends its body: it is sent when the body is read, once
 * the request is admitted, so a request refused first (no key, no quota) is never invited to send.
 */
export const expectContinue = (req: IncomingMessage, res: ServerResponse): void => {
  awaitingContinue.set(req, res);
};

/**
 * A request body, decoded from plain, gzip, deflate or br `Content-Encoding`; past BODY_LIMIT_BYTES,
 * compressed or not, chunked or not, it is refused as it arrives, and so is a request that does not
 * arrive whole in time (server.ts). Every client mistake is a TRPCError with a 4xx: an encoding the
 * service does not take 415, a corrupt or truncated body 400, one too slow 408.
 */
export const readBody = async (req: IncomingMessage): Promise<Buffer> => {
  if (Number(req.headers['content-length'] ?? 0) > BODY_LIMIT_BYTES) throw tooLarge();
  if (unparseable.has(req)) throw malformed();
  const inviting = awaitingContinue.get(req);
  if (inviting) {
    awaitingContinue.delete(req);
    inviting.writeContinue();
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let source: Readable = req;
  if (encoding !== 'identity') {
    const decoder = DECODERS[encoding]?.();
    if (!decoder) {
      throw new TRPCError({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'The body uses a Content-Encoding the service does not take; send gzip, deflate, br or none.',
      });
    }
    req.pipe(decoder);
    source = decoder;
  }
  const read = await collect(req, source);
  if (read === 'too-large') throw tooLarge();
  if (read === 'too-dense') {
    throw new TRPCError({ code: 'PAYLOAD_TOO_LARGE', message: `The body grows to more than ${MAX_DECOMPRESSION_RATIO} times its compressed size.` });
  }
  if (read === 'too-slow') {
    throw new TRPCError({ code: 'TIMEOUT', message: 'The body did not arrive in time.' });
  }
  if (read === 'malformed') throw malformed();
  if (read === 'broken') {
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: encoding === 'identity' ? 'The body ended before it was complete.' : `The body is not valid ${encoding} data.`,
    });
  }
  return read;
};

/** `application/json`, with or without parameters; a charset, when given, must be UTF-8. */
const JSON_MEDIA_TYPE = /^application\/json\s*(?:;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

const describeJson = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

/**
 * A REST body: a JSON object sent as `application/json` (UTF-8). An empty body reads as undefined,
 * for the schema to refuse; any other JSON value, malformed JSON or another media type is refused.
 */
export const readJsonObject = async (req: IncomingMessage): Promise<object | undefined> => {
  const contentType = req.headers['content-type'];
  if (contentType === undefined || !JSON_MEDIA_TYPE.test(contentType)) {
    throw new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message: `Send the body as ${JSON_TYPE}.` });
  }
  const charset = CHARSET.exec(contentType)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'The body must be JSON encoded as UTF-8.' });
  }
  const text = (await readBody(req)).toString('utf8');
  if (text.length === 0) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'The body is not valid JSON.' });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: `The body must be a JSON object, not ${describeJson(value)}.` });
  }
  return value;
};
