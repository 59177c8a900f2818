import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.js';

/**
 * Lines are gathered up to this many bytes before a write, and written at least this often. Each
 * write is handed to libuv's thread pool and its completion handed back, two wake-ups between
 * threads whatever its size; 16 KiB is the most SonicBoom writes at once
 * (docs/decisions/2026-11-25-log-writes-in-16-kib-batches.md).
 */
const LOG_BATCH_BYTES = 16 * 1024;
const LOG_FLUSH_EVERY_MS = 100;

/**
 * Stdout, written asynchronously and in batches: a request never waits for the terminal or a pipe,
 * and under load one write carries dozens of lines instead of one each. Lines are gathered here and
 * handed to pino's destination (SonicBoom) joined: its own batching (`minLength`) measures the
 * whole pending text on every line, which grows with the load (docs/decisions/2026-11-23-postgres-read-path.md). A line waits at
 * most LOG_FLUSH_EVERY_MS; `flush()` writes what is left.
 */
const batchedStdout = (): DestinationStream & { flush(callback?: (error?: Error) => void): void } => {
  const destination = pino.destination({ dest: 1, sync: false });
  let lines: string[] = [];
  let length = 0;
  const writeGathered = () => {
    if (lines.length === 0) return;
    destination.write(lines.join(''));
    lines = [];
    length = 0;
  };
  setInterval(writeGathered, LOG_FLUSH_EVERY_MS).unref();
  // A process that ends without a flush still writes its last lines.
  process.once('exit', () => {
    writeGathered();
    try {
      destination.flushSync();
    } catch {
      // Closed or never opened: nothing more can be written.
    }
  });
  return {
    write: (line: string) => {
      lines.push(line);
      length += line.length;
      if (length >= LOG_BATCH_BYTES) writeGathered();
    },
    flush: (callback) => {
      writeGathered();
      destination.flush(callback);
    },
  };
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
