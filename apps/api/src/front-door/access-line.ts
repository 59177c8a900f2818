import { type Logger, pino } from 'pino';
import type { AccessLog } from '../exchange/exchange.js';

/** pino's levels, as the line's `level` field carries them. */
const INFO = 30;
const ERROR = 50;

interface PinoInternals {
  /** The logger's base fields (`pid`, `hostname`, child bindings), already serialised: `,"pid":…`. */
  [pino.symbols.chindingsSym]: string;
  [pino.symbols.streamSym]: { write(line: string): void };
}

/**
 * The most of a URL an access line quotes: a request line may take 16 KiB, and a log that copied
 * it whole would let any client write that much into it with every request.
 */
export const MAX_LOGGED_URL_LENGTH = 2_048;

const loggedUrl = (url: string) => (url.length > MAX_LOGGED_URL_LENGTH ? `${url.slice(0, MAX_LOGGED_URL_LENGTH)}…` : url);

/**
 * The one line each request leaves once its reply is written, in pino's own format, through the
 * logger's own destination: written from a template because pino's `child().info()` costs 1.0 µs a
 * line against 0.35, 4% of a get by id's CPU (docs/decisions/2026-11-26-request-path-reads-forward.md).
 * The fields are few and known: an id of plain token characters, a method Node has checked, a
 * number, and a URL, which is escaped as JSON. Every other line goes through pino.
 */
export const createAccessLog = (logger: Logger): AccessLog => {
  const internals = logger as unknown as PinoInternals;
  const bindings = internals[pino.symbols.chindingsSym];
  const stream = internals[pino.symbols.streamSym];
  const infoEnabled = logger.isLevelEnabled('info');
  const errorEnabled = logger.isLevelEnabled('error');
  return (reqId, method, url, status, responseTime, trace) => {
    const failed = status >= 500;
    if (failed ? !errorEnabled : !infoEnabled) return;
    // Trace and span ids are lowercase hex, as W3C Trace Context has them: nothing to escape.
    const traceFields = trace ? `,"trace_id":"${trace.trace_id}","span_id":"${trace.span_id}"` : '';
    stream.write(
      `{"level":${failed ? ERROR : INFO},"time":${Date.now()}${bindings},"reqId":"${reqId}"${traceFields},"req":{"method":"${method ?? ''}","url":${JSON.stringify(loggedUrl(url ?? ''))}},"res":{"statusCode":${status}},"responseTime":${responseTime},"msg":"${failed ? 'request failed' : 'request completed'}"}\n`,
    );
  };
};
