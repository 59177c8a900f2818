/** The most creates one batch carries, so one statement's arrays stay small. */
export const MAX_BATCH = 256;

interface Waiting<Item, Result> {
  item: Item;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/**
 * Group commit: items that arrive while a batch is being written wait, and go together in the
 * next one, so a flush of the log carries many of them. An item that finds nothing being written
 * goes at once, alone: a lone create is not held back. `write` answers the items in their order.
 */
export const groupCommit = <Item, Result>(write: (items: Item[]) => Promise<Result[]>) => {
  let waiting: Waiting<Item, Result>[] = [];
  let writing = false;

  const drain = async () => {
    writing = true;
    while (waiting.length > 0) {
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

  return (item: Item): Promise<Result> =>
    new Promise<Result>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!writing) void drain();
    });
};
