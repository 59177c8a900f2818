/** The most creates one group carries, so one statement's arrays stay small. */
const MAX_BATCH = 256;

interface Waiting<Item, Result> {
  item: Item;
  /** Aborted when whoever asked has gone: an item still waiting then is dropped, not written. */
  signal: AbortSignal | undefined;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

export interface GroupCommitOptions {
  /**
   * Waited for before a group is taken, so that items arriving meanwhile join it. Unset, an item
   * that finds nothing being written goes at once, alone.
   */
  gather?: () => Promise<void>;
}

/**
 * Group commit: items wait while a group is being written and go together in the next one, so
 * one commit, and one flush of the log, carries many of them. `write` answers the items of a group
 * in their order, or fails them all. Without `gather`, a lone item is not held back; a write that
 * never waits (SQLite's) needs `gather` to let a group form at all. An item whose `signal` aborts
 * before its group is taken is dropped: it fails with the signal's reason and is never written.
 */
export const groupCommit = <Item, Result>(write: (items: Item[]) => Promise<Result[]>, { gather }: GroupCommitOptions = {}) => {
  let waiting: Waiting<Item, Result>[] = [];
  let writing = false;

  const drain = async () => {
    writing = true;
    if (gather) await gather();
    while (waiting.length > 0) {
      for (const waiter of waiting) if (waiter.signal?.aborted) waiter.reject(waiter.signal.reason);
      waiting = waiting.filter((waiter) => !waiter.signal?.aborted);
      if (waiting.length === 0) break;
      const batch = waiting.slice(0, MAX_BATCH);
      waiting = waiting.slice(MAX_BATCH);
      try {
        const results = await write(batch.map(({ item }) => item));
        batch.forEach((waiter, index) => {
          waiter.resolve(results[index] as Result);
        });
      } catch (error) {
        for (const waiter of batch) waiter.reject(error);
      }
    }
    writing = false;
  };

  return (item: Item, signal?: AbortSignal): Promise<Result> =>
    new Promise<Result>((resolve, reject) => {
      waiting.push({ item, signal, resolve, reject });
      if (!writing) void drain();
    });
};

/** Resolves once the event loop has run every I/O callback that is ready now: the requests read together. */
export const afterReadyCallbacks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
