import { type DestinationStream, type Logger, pino } from 'pino';
import { type Config, DEFAULT_LOG_BACKLOG_BYTES } from './config.js';

/**
 * Lines are gathered up to this many bytes before a write, and written at least this often. Each
 * write is handed to libuv's thread pool and its completion handed back, two wake-ups between
 * threads whatever its size; 16 KiB is the most SonicBoom writes at once
 * (docs/decisions/2026-11-25-log-writes-in-16-kib-batches.md).
 */
const LOG_BATCH_BYTES = 16 * 1024;
const LOG_FLUSH_EVERY_MS = 100;

let droppedLines = 0;

/** Log lines dropped since the process started, for a backlog past its bound (`petstore_log_lines_dropped_total`). */
export const logLinesDropped = (): number => droppedLines;

/** Lines in a batch of JSON lines: one per line feed. */
const linesIn = (text: string) => {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
};

/**
 * Stdout, written asynchronously and in batches: a request never waits for the terminal or a pipe,
 * and under load one write carries dozens of lines instead of one each. Lines are gathered here and
 * handed to pino's destination (SonicBoom) joined: its own batching (`minLength`) measures the
 * whole pending text on every line, which grows with the load
 * (docs/decisions/2026-11-25-log-writes-in-16-kib-batches.md). A line waits at most LOG_FLUSH_EVERY_MS; `flush()` writes what is left. What SonicBoom has not written yet is
 * bounded by `backlogBytes`: a batch past it is dropped and its lines counted, and once a batch
 * fits again `dropped` is told how many were lost, once per episode. Dropped, not waited for: a
 * log that blocked would stall every request behind a stalled stdout.
 */
const batchedStdout = (backlogBytes: number, dropped: (lines: number) => void): DestinationStream & { flush(callback?: (error?: Error) => void): void } => {
  const destination = pino.destination({ dest: 1, sync: false, maxLength: backlogBytes });
  let lines: string[] = [];
  let length = 0;
  let droppedInEpisode = 0;
  destination.on('drop', (text: string) => {
    const count = linesIn(text);
    droppedLines += count;
    droppedInEpisode += count;
  });
  const writeGathered = () => {
    if (lines.length === 0) return;
    const droppedBefore = droppedLines;
    destination.write(lines.join(''));
    lines = [];
    length = 0;
    if (droppedLines === droppedBefore && droppedInEpisode > 0) {
      const count = droppedInEpisode;
      droppedInEpisode = 0;
      dropped(count);
    }
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

/**
 * JSON lines (pino), to stdout in batches unless `destination` says otherwise. Whoever stops the
 * process flushes it (`logger.flush()`).
 */
export const createLogger = (level: Config['logLevel'], destination?: DestinationStream, backlogBytes = DEFAULT_LOG_BACKLOG_BYTES): Logger => {
  // Told only on a later write, once the logger exists.
  const droppedLinesFor = (lines: number) => {
    logger.warn({ droppedLines: lines, logBacklogBytes: backlogBytes }, 'stdout did not take the log as fast as it came: lines past the backlog were dropped (petstore_log_lines_dropped_total)');
  };
  const logger: Logger = pino(
    {
      level,
      // Nothing logs these today; the redaction keeps a future careless line from leaking a key.
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'apiKey', 'token', '*.apiKey', '*.token'],
        censor: '[redacted]',
      },
    },
    destination ?? batchedStdout(backlogBytes, droppedLinesFor),
  );
  return logger;
};
