import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.js';

/** Lines are gathered up to this many bytes before a write, and written at least this often. */
const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_EVERY_MS = 100;

/**
 * Stdout, written asynchronously and in batches: a request never waits for the terminal or a pipe,
 * and under load one write carries dozens of lines instead of one each. A line waits at most
 * LOG_FLUSH_EVERY_MS; pino flushes what is left when the process exits.
 */
const batchedStdout = (): DestinationStream => {
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES });
  setInterval(() => {
    destination.flush();
  }, LOG_FLUSH_EVERY_MS).unref();
  return destination;
};

/** JSON lines (pino). Whoever stops the process flushes it (`logger.flush()`). */
export const createLogger = (level: Config['logLevel'], destination: DestinationStream = batchedStdout()): Logger =>
  pino(
    {
      level,
      // Nothing logs these today; the redaction keeps a future careless line from leaking a key.
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'apiKey', 'token', '*.apiKey', '*.token'],
        censor: '[redacted]',
      },
    },
    destination,
  );
