import { type Logger, pino } from 'pino';
import type { Config } from './config.js';

/**
 * JSON lines on stdout, written asynchronously: a request never waits for the terminal or a pipe.
 * Whoever stops the process flushes it (`logger.flush()`).
 */
export const createLogger = (level: Config['logLevel']): Logger =>
  pino({ level }, pino.destination({ dest: 1, sync: false }));
