import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { TRPCError } from '@trpc/server';

/** The largest request body taken, counted as bytes arrive, after decompression too. */
export const BODY_LIMIT_BYTES = 64 * 1024;
export const BODY_LIMIT_TEXT = `${BODY_LIMIT_BYTES / 1024} KiB`;

export type JsonBody = { ok: true; value: unknown } | { ok: false; error: TRPCError };

const refuse = (code: TRPCError['code'], message: string): JsonBody => ({ ok: false, error: new TRPCError({ code, message }) });

const DECODERS: Record<string, () => Readable & NodeJS.WritableStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** `application/json`, with or without parameters; a charset, when given, must be UTF-8. */
const JSON_TYPE = /^application\/json\s*(?:;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

const mediaTypeProblem = (contentType: string | undefined): JsonBody | undefined => {
  if (contentType === undefined || !JSON_TYPE.test(contentType)) {
    return refuse('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
  }
  const charset = CHARSET.exec(contentType)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return refuse('UNSUPPORTED_MEDIA_TYPE', 'The body must be JSON encoded as UTF-8.');
  }
  return undefined;
};

/** Reads a stream to its end, refusing it as soon as it passes the limit. */
const collect = (stream: Readable, onTooLarge: () => void) =>
  new Promise<Buffer | 'too-large' | 'broken'>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (outcome: Buffer | 'too-large' | 'broken') => {
      settled = true;
      resolve(outcome);
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) {
        onTooLarge();
        settle('too-large');
        return;
      }
      chunks.push(chunk);
    });
    stream.once('end', () => {
      settle(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    });
    stream.once('error', () => {
      settle('broken');
    });
    // A client that goes away mid-body ends the stream without 'end'; after 'end' this is a no-op.
    stream.once('close', () => {
      if (!settled) settle('broken');
    });
  });

const describeJson = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

/**
 * A request's JSON body. Any `application/json` is read (a UTF-8 `charset` included), in plain,
 * gzip, deflate or br `Content-Encoding`; past BODY_LIMIT_BYTES, compressed or not, chunked or
 * not, it is refused as it arrives. Every client mistake is a 4xx: a corrupt or truncated
 * compressed body is 400, an encoding the service does not take is 415, malformed JSON is 400.
 * `objectOnly` refuses any JSON value other than an object (REST bodies); tRPC inputs may be any
 * value. An empty body reads as undefined.
 */
export const readJsonBody = async (req: IncomingMessage, { objectOnly }: { objectOnly: boolean }): Promise<JsonBody> => {
  const problem = mediaTypeProblem(req.headers['content-type']);
  if (problem) return problem;
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > BODY_LIMIT_BYTES) return refuse('PAYLOAD_TOO_LARGE', `The body is larger than ${BODY_LIMIT_TEXT}.`);

  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let source: Readable = req;
  if (encoding !== 'identity') {
    const decoder = DECODERS[encoding]?.();
    if (!decoder) {
      return refuse('UNSUPPORTED_MEDIA_TYPE', 'The body uses a Content-Encoding the service does not take; send gzip, deflate, br or none.');
    }
    req.pipe(decoder);
    source = decoder;
  }
  const read = await collect(source, () => {
    req.unpipe();
    source.pause();
  });
  if (read === 'too-large') return refuse('PAYLOAD_TOO_LARGE', `The body is larger than ${BODY_LIMIT_TEXT}.`);
  if (read === 'broken') {
    return encoding === 'identity'
      ? refuse('BAD_REQUEST', 'The body ended before it was complete.')
      : refuse('BAD_REQUEST', `The body is not valid ${encoding} data.`);
  }
  if (read.length === 0) return { ok: true, value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(read.toString('utf8'));
  } catch {
    return refuse('BAD_REQUEST', 'The body is not valid JSON.');
  }
  if (objectOnly && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    return refuse('BAD_REQUEST', `The body must be a JSON object, not ${describeJson(value)}.`);
  }
  return { ok: true, value };
};
