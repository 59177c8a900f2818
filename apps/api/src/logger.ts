import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.js';

/**
 * JSON lines on stdout, written asynchronously: a request never waits for the terminal or a pipe.
 * Whoever stops the process flushes it (`logger.flush()`).
 */
export const createLogger = (
  level: Config['logLevel'],
  destination: DestinationStream = pino.destination({ dest: 1, sync: false }),
): Logger =>
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
