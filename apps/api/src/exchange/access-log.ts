import type { Logger } from 'pino';
import { pino } from 'pino';

/** pino's levels, as the line's `level` field carries them. */
const INFO = 30;
const ERROR = 50;

interface PinoInternals {
  /** The logger's base fields (`pid`, `hostname`, child bindings), already serialised: `,"pid":…`. */
  [pino.symbols.chindingsSym]: string;
  [pino.symbols.streamSym]: { write(line: string): void };
}

/**
 * The one line each API request leaves, in pino's own format and through the logger's own
 * destination, written as a template instead of through `logger.info()`: pino's generic
 * serialisation and redaction are a noticeable share of a whole get-by-id, the template a small
 * fraction of that (DEVELOPERS.md, The front door). The fields are
 * few and known: an id of plain token characters, a method Node has checked, a number, and a URL,
 * which is escaped as JSON. Every other line the service logs still goes through pino.
 */
export const createAccessLog = (logger: Logger) => {
  const internals = logger as unknown as PinoInternals;
  const bindings = internals[pino.symbols.chindingsSym];
  const stream = internals[pino.symbols.streamSym];
  const infoEnabled = logger.isLevelEnabled('info');
  const errorEnabled = logger.isLevelEnabled('error');
  return (
    reqId: string,
    method: string | undefined,
    url: string | undefined,
    status: number,
    responseTime: number,
    trace?: { trace_id: string; span_id: string },
  ): void => {
    const failed = status >= 500;
    if (failed ? !errorEnabled : !infoEnabled) return;
    // Trace and span ids are lowercase hex, as W3C Trace Context has them: nothing to escape.
    const traceFields = trace ? `,"trace_id":"${trace.trace_id}","span_id":"${trace.span_id}"` : '';
    stream.write(
      `{"level":${failed ? ERROR : INFO},"time":${Date.now()}${bindings},"reqId":"${reqId}"${traceFields},"req":{"method":"${method ?? ''}","url":${JSON.stringify(url ?? '')}},"res":{"statusCode":${status}},"responseTime":${responseTime},"msg":"${failed ? 'request failed' : 'request completed'}"}\n`,
    );
  };
};

export type AccessLog = ReturnType<typeof createAccessLog>;
