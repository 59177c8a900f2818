import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { STORAGE_RETRY_AFTER_SECONDS } from '@petstore/core';
import type { AccessLog } from './access-log.js';

/** A client's own request id is kept when it is a plain token; anything else is replaced, never echoed. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestIdOf = (header: string | string[] | undefined): string =>
  typeof header === 'string' && ACCEPTABLE_ID.test(header) ? header : randomUUID();

/** Told when an exchange's response is written, with its status and how long it took. */
export type FinishListener = (exchange: Exchange, status: number, elapsedMs: number) => void;

/** Headers as `writeHead` takes them flat: name, value, name, value… */
export type FlatHeaders = (string | number)[];

/** JSON answers: nothing in them may be run, framed or cached by a shared cache. */
export const API_SECURITY_HEADERS: FlatHeaders = [
  'X-Content-Type-Options', 'nosniff',
  'Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'",
  'Referrer-Policy', 'no-referrer',
  'Cache-Control', 'no-store',
];

/**
 * One request on the API's own path, from arrival to its single response: its id, its log, and
 * the one call that writes status, every header and the body together. Headers are collected in
 * one flat array and written once, with a `Content-Length`, so a response leaves in one write
 * instead of a chunked body after separate header calls.
 */
export class Exchange {
  readonly reqId: string;
  private readonly startedAt = performance.now();
  private bound: Logger | undefined;
  /**
   * The route, once the handler knows it: the REST path template (`/v1/pets/{petId}`) or the tRPC
   * procedure (`/trpc/listPets`), never the raw URL. Metrics and spans are labelled with it.
   */
  route: string | undefined = undefined;
  /** Set at the start by metrics or tracing when they are on; otherwise nothing is called. */
  onFinish: FinishListener | undefined = undefined;
  /** The request's trace ids for its log lines (`trace_id`, `span_id`); unset without tracing. */
  traceIds: { trace_id: string; span_id: string } | undefined = undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    private readonly logger: Logger,
    private readonly accessLog: AccessLog,
  ) {
    this.reqId = requestIdOf(req.headers['x-request-id']);
  }

  /** The logger bound to this request's id, made only when something is logged through it. */
  get log(): Logger {
    return (this.bound ??= this.logger.child(this.traceIds ? { reqId: this.reqId, ...this.traceIds } : { reqId: this.reqId }));
  }

  /** Sends a JSON body (an empty string: no body) with the API's headers and `extra` ones. */
  sendJson(status: number, json: string, extra?: FlatHeaders): void {
    const headers: OutgoingHttpHeader[] = [
      'Content-Type', 'application/json',
      'Content-Length', Buffer.byteLength(json),
      'X-Request-Id', this.reqId,
      ...API_SECURITY_HEADERS,
    ];
    if (extra) for (const value of extra) headers.push(value);
    // Every 503 tells the client when to try again, on both transports, unless its sender already did.
    if (status === 503 && !extra?.includes('Retry-After')) headers.push('Retry-After', STORAGE_RETRY_AFTER_SECONDS);
    this.res.writeHead(status, headers as string[]);
    this.res.end(json);
    this.logCompletion(status);
  }

  /** Sends a response without a body (a 304), with the API's headers and `extra` ones. */
  sendEmpty(status: number, extra: FlatHeaders): void {
    const headers: OutgoingHttpHeader[] = ['X-Request-Id', this.reqId, ...API_SECURITY_HEADERS, ...extra];
    this.res.writeHead(status, headers as string[]);
    this.res.end();
    this.logCompletion(status);
  }

  private logCompletion(status: number): void {
    const elapsedMs = performance.now() - this.startedAt;
    this.accessLog(this.reqId, this.req.method, this.req.url, status, Math.round(elapsedMs), this.traceIds);
    this.onFinish?.(this, status, elapsedMs);
  }
}
