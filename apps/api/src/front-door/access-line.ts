import { type Logger, pino } from 'pino';
import type { AccessLog } from '../http/request-context.js';

/** pino's levels, as the line's `level` field carries them. */
const INFO = 30;
const WARN = 40;
const ERROR = 50;

/**
 * Each status's level and message. A 503 is the service refusing work for now (shedding, a
 * connection or memory bound, a database away), each cause logged once where it is decided: an
 * error line per refusal would page someone for every request of a flood. Any other 5xx failed.
 */
const LINES = {
  completed: { level: INFO, msg: 'request completed' },
  refused: { level: WARN, msg: 'request refused for now' },
  failed: { level: ERROR, msg: 'request failed' },
} as const;

const lineOf = (status: number) => (status < 500 ? LINES.completed : status === 503 ? LINES.refused : LINES.failed);

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
 * logger's own destination: written from a template because pino's generic `child().info()` costs
 * several times as much on every request (docs/decisions/2026-11-23-access-line-from-a-template.md).
 * The fields are few and known: an id of plain token characters, a method Node has checked, a
 * number, and a URL, which is escaped as JSON. Every other line goes through pino.
 */
export const createAccessLog = (logger: Logger): AccessLog => {
  const internals = logger as unknown as PinoInternals;
  const bindings = internals[pino.symbols.chindingsSym];
  const stream = internals[pino.symbols.streamSym];
  const enabled = new Set([INFO, WARN, ERROR].filter((level) => logger.isLevelEnabled(pino.levels.labels[level] ?? 'info')));
  return (reqId, method, url, status, responseTime, trace) => {
    const { level, msg } = lineOf(status);
    if (!enabled.has(level)) return;
    // Trace and span ids are lowercase hex, as W3C Trace Context has them: nothing to escape.
    const traceFields = trace ? `,"trace_id":"${trace.trace_id}","span_id":"${trace.span_id}"` : '';
    stream.write(
      `{"level":${level},"time":${Date.now()}${bindings},"reqId":"${reqId}"${traceFields},"req":{"method":"${method ?? ''}","url":${JSON.stringify(loggedUrl(url ?? ''))}},"res":{"statusCode":${status}},"responseTime":${responseTime},"msg":"${msg}"}\n`,
    );
  };
};
