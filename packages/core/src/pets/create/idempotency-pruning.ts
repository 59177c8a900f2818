import { setImmediate as nextTurn } from 'node:timers/promises';
import { idempotencyRecordsExpireBefore } from './idempotency.js';
import type { PetRecords } from '../../storage/database.js';

/** Records deleted per statement: a batch holds SQLite's write lock, or a connection, briefly. */
const PRUNE_BATCH = 100;
/** How often expired records are looked for. */
const PRUNE_EVERY_MS = 60_000;

export interface IdempotencyPruning {
  /** Waits for a batch in progress, so the database can close under nobody. */
  stop(): Promise<void>;
}

/**
 * Deletes expired idempotency records in the background, away from any request: every
 * `everyMs`, batches of PRUNE_BATCH until one comes back short, yielding to the event loop
 * between batches so requests interleave with a long backlog. Requests never prune; they ignore
 * an expired record while it waits its turn.
 */
export const startIdempotencyPruning = (
  records: Pick<PetRecords, 'deleteExpiredIdempotencyRecords'>,
  everyMs = PRUNE_EVERY_MS,
): IdempotencyPruning => {
  let stopped = false;
  let sweeping: Promise<void> | undefined;

  const sweep = async () => {
    while (!stopped) {
      const deleted = await records.deleteExpiredIdempotencyRecords(idempotencyRecordsExpireBefore(new Date()), PRUNE_BATCH);
      if (deleted < PRUNE_BATCH) return;
      await nextTurn();
    }
  };

  const timer = setInterval(() => {
    // One sweep at a time; a failed one (the database unreachable, which requests and /readyz
    // report) is simply tried again at the next tick.
    sweeping ??= sweep()
      .catch(() => undefined)
      .finally(() => {
        sweeping = undefined;
      });
  }, everyMs);
  // Pruning alone never keeps a process (the keys CLI, a test) alive.
  timer.unref();

  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await sweeping;
    },
  };
};
