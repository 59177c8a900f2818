import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { TRPCError } from '@trpc/server';

/** The largest request body taken, counted as bytes arrive, after decompression too. */
export const BODY_LIMIT_BYTES = 64 * 1024;
export const BODY_LIMIT_TEXT = `${BODY_LIMIT_BYTES / 1024} KiB`;

const DECODERS: Record<string, () => Readable & NodeJS.WritableStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

const tooLarge = () => new TRPCError({ code: 'PAYLOAD_TOO_LARGE', message: `The body is larger than ${BODY_LIMIT_TEXT}.` });

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

/**
 * A request body, decoded from plain, gzip, deflate or br `Content-Encoding`; past BODY_LIMIT_BYTES,
 * compressed or not, chunked or not, it is refused as it arrives. Every client mistake is a
 * TRPCError with a 4xx: an encoding the service does not take 415, a corrupt or truncated body 400.
 */
export const readBody = async (req: IncomingMessage): Promise<Buffer> => {
  if (Number(req.headers['content-length'] ?? 0) > BODY_LIMIT_BYTES) throw tooLarge();
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
  const read = await collect(source, () => {
    req.unpipe();
    source.pause();
  });
  if (read === 'too-large') throw tooLarge();
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
    throw new TRPCError({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the body as application/json.' });
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
