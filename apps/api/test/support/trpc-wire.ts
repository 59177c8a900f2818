import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Context, type Database, MAX_BATCH_SIZE, appRouter, createApiKeys, openDatabase } from '@petstore/core';
import { type CreateHTTPContextOptions, createHTTPServer } from '@trpc/server/adapters/standalone';
import { jsonlStreamConsumer } from '@trpc/server/unstable-core-do-not-import';
import { BODY_LIMIT_BYTES } from '../../src/http/read-body.js';
import { it as base } from '../../src/testing/index.js';

/** One request on the wire, apart from its key: `send` adds `Authorization`. */
export interface WireRequest {
  method: string;
  /** Path and query, exactly as they go on the request line. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The request asked for JSON lines, as httpBatchStreamLink does. */
  streamed: boolean;
}

/**
 * Sends `wire` over a connection of its own (a refused body's leftovers never reach the next
 * request), with `authorization` as sent, or none. A server that answers before reading the
 * body may reset the connection while it is still being written: that is not the answer.
 */
export const send = (url: string, wire: WireRequest, authorization: string | undefined) =>
  new Promise<Answer>((resolve, reject) => {
    const headers: Record<string, string> = { ...wire.headers, ...(authorization !== undefined && { Authorization: authorization }) };
    if (wire.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(wire.body));
    // The path as given, on the request line: a URL would have its dot segments resolved before it is sent.
    const req = request(url, { path: wire.path, method: wire.method, headers, agent: false, signal: AbortSignal.timeout(10_000) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), streamed: wire.headers?.['trpc-accept'] === 'application/jsonl' });
      });
      res.on('error', reject);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    req.end(wire.body);
  });

export const bearer = (key: string) => `Bearer ${key}`;

const json = (value: unknown) => encodeURIComponent(JSON.stringify(value));

/** A call as httpLink sends it: the input in the query for GET, as the JSON body otherwise. */
export const single = (method: string, name: string, input?: unknown, headers: Record<string, string> = {}): WireRequest =>
  method === 'GET' || method === 'HEAD'
    ? { method, path: `/trpc/${encodeURIComponent(name)}${input === undefined ? '' : `?input=${json(input)}`}`, headers }
    : { method, path: `/trpc/${encodeURIComponent(name)}`, headers: { 'Content-Type': 'application/json', ...headers }, body: input === undefined ? '' : JSON.stringify(input) };

/** Calls as httpBatchLink sends them: `a,b?batch=1`, the inputs keyed by index. */
export const batch = (method: string, names: string[], inputs: unknown = {}, headers: Record<string, string> = {}): WireRequest => {
  const path = `/trpc/${names.map(encodeURIComponent).join(',')}?batch=1`;
  return method === 'GET' || method === 'HEAD'
    ? { method, path: `${path}&input=${json(inputs)}`, headers }
    : { method, path, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(inputs) };
};

/** What httpBatchStreamLink adds to a batch. */
export const STREAM = { 'trpc-accept': 'application/jsonl' };

/**
 * A streamed answer as httpBatchStreamLink reads it: decoded by tRPC's own client-side decoder
 * (`jsonlStreamConsumer`), each call's promises resolved as the link resolves them, in call order.
 * Two answers that differ only in how their lines are cut and numbered decode the same.
 */
const decodeJsonLines = async (text: string): Promise<Envelope[]> => {
  const from = new Response(text).body;
  if (!from) throw new Error('no body to decode');
  const [head] = await jsonlStreamConsumer<Record<string, unknown>>({ from, abortController: new AbortController() });
  return Promise.all(
    Object.keys(head).map(async (key) => {
      const json = (await Promise.resolve(head[key])) as Envelope;
      if (!('result' in json)) return json;
      const result = (await Promise.resolve(json.result)) as { data: unknown };
      return { result: { data: await Promise.resolve(result.data) } };
    }),
  );
};

const parseBody = async (answer: Answer) => {
  if (answer.text === '') return undefined;
  if (answer.streamed && answer.status === 200) return { jsonLines: await decodeJsonLines(answer.text) };
  try {
    return { json: JSON.parse(answer.text) as unknown };
  } catch {
    return { text: answer.text };
  }
};

/**
 * What tRPC's adapter decides about an answer: status, media type, body, and the headers tRPC
 * itself sets. Framing (Content-Length, chunked encoding of a plain answer) and the service's own
 * headers (request id, security headers, rate limits, WWW-Authenticate, Retry-After) are left out.
 */
export const normalise = async (answer: Answer) => {
  const body = await parseBody(answer);
  const header = (name: string) => answer.headers[name];
  return {
    status: answer.status,
    mediaType: String(header('content-type') ?? '').split(';')[0]?.trim().toLowerCase(),
    vary: header('vary'),
    allow: header('allow'),
    ...(body && 'jsonLines' in body && { transferEncoding: header('transfer-encoding') }),
    body,
  };
};

/**
 * The reference's answer as the service labels it: tRPC's adapter sends the JSON of a refusal of
 * the whole request as text/plain (a string handed to `new Response()` without a type); the
 * service sends it as application/json, as the interface has every error.
 */
export const labelledAsOurs = (answer: Awaited<ReturnType<typeof normalise>>) =>
  answer.mediaType === 'text/plain' && answer.body && 'json' in answer.body ? { ...answer, mediaType: 'application/json' } : answer;

export interface Envelope {
  result?: { data: unknown };
  error?: { message: string; code: number; data: { code: string; httpStatus: number } };
}

/** Each call's envelope: one for a single call, the array of a batch. */
export const envelopes = (answer: Answer): Envelope[] => {
  const body = JSON.parse(answer.text) as Envelope | Envelope[];
  return Array.isArray(body) ? body : [body];
};

export const errorCodes = (answer: Answer) => envelopes(answer).map((envelope) => envelope.error?.data.code ?? 'OK');

/**
 * The procedures' context as tRPC's adapter gets it from a request: the bearer key (scheme in any
 * case) and the `Idempotency-Key` header.
 */
const referenceContext = async (db: Database, { req }: CreateHTTPContextOptions): Promise<Context> => {
  const token = /^bearer +(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const idempotencyKey = req.headers['idempotency-key'];
  return {
    db,
    principal: token ? await createApiKeys(db.apiKeys).authenticate(token) : null,
    idempotencyKey: Array.isArray(idempotencyKey) ? idempotencyKey.join(', ') : idempotencyKey,
  };
};

export interface Reference {
  url: string;
  db: Database;
}

/**
 * tRPC's own standalone adapter serving the same router, on a fresh SQLite file holding the same
 * key records as `keysFrom` (so one token works on both): what `/trpc` must answer like.
 */
const startReference = async (allowMethodOverride: boolean, keysFrom?: Database) => {
  const folder = mkdtempSync(join(tmpdir(), 'petstore-trpc-reference-'));
  const db = await openDatabase({ sqliteFile: join(folder, 'reference.db') });
  for (const key of (await keysFrom?.apiKeys.list()) ?? []) await db.apiKeys.insert(key);
  const server = createHTTPServer({
    router: appRouter,
    basePath: '/trpc/',
    maxBatchSize: MAX_BATCH_SIZE,
    maxBodySize: BODY_LIMIT_BYTES,
    allowMethodOverride,
    createContext: (options) => referenceContext(db, options),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await db.close();
    rmSync(folder, { recursive: true, force: true });
  };
  return { reference: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, db }, close };
};

/** The service's fixtures, and `startReference(allowMethodOverride, keysFrom?)`, closed when the test ends. */
export const it = base.extend(
  'startReference',
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  ({}, { onCleanup }) => {
    const closers: (() => Promise<void>)[] = [];
    onCleanup(async () => {
      await Promise.all(closers.map((close) => close()));
    });
    return async (allowMethodOverride: boolean, keysFrom?: Database): Promise<Reference> => {
      const { reference, close } = await startReference(allowMethodOverride, keysFrom);
      closers.push(close);
      return reference;
    };
  },
);
