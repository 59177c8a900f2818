import { describe, expect, it } from 'vitest';
import { afterReadyCallbacks, groupCommit } from './group-commit.js';

/** A writer that answers each item doubled and keeps the groups it was given. */
const recording = () => {
  const groups: number[][] = [];
  const write = async (items: number[]) => {
    groups.push(items);
    await Promise.resolve();
    return items.map((item) => item * 2);
  };
  return { groups, write };
};

describe('group commit', () => {
  it('sends a lone item at once, and those that arrive while it is written together after it', async () => {
    const { groups, write } = recording();
    const commit = groupCommit(write);
    const results = await Promise.all([1, 2, 3, 4].map((item) => commit(item)));
    expect(results).toEqual([2, 4, 6, 8]);
    expect(groups).toEqual([[1], [2, 3, 4]]);
  });

  it('with gather, waits for the items read together and writes them as one group', async () => {
    const { groups, write } = recording();
    const commit = groupCommit(write, { gather: afterReadyCallbacks });
    const first = Promise.all([1, 2, 3].map((item) => commit(item)));
    // Arriving in a later turn of the event loop: the next group.
    const later = new Promise<number[]>((resolve) => {
      setImmediate(() => {
        resolve(Promise.all([4, 5].map((item) => commit(item))));
      });
    });
    expect([await first, await later]).toEqual([[2, 4, 6], [8, 10]]);
    expect(groups).toEqual([[1, 2, 3], [4, 5]]);
  });

  it('fails every item of a group whose write fails, and not the next group', async () => {
    let calls = 0;
    const commit = groupCommit(
      async (items: number[]) => {
        calls += 1;
        if (calls === 1) throw new Error('disk full');
        return items;
      },
      { gather: afterReadyCallbacks },
    );
    const failed = await Promise.allSettled([1, 2].map((item) => commit(item)));
    expect(failed.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(await commit(3)).toBe(3);
  });

  it('drops an item whose caller went away while it waited, and writes the rest of its group', async () => {
    const { groups, write } = recording();
    const commit = groupCommit(write);
    const gone = new AbortController();
    const first = commit(1);
    const waiting = [commit(2), commit(3, gone.signal), commit(4)];
    gone.abort(new Error('the client left'));
    expect(await first).toBe(2);
    const settled = await Promise.allSettled(waiting);
    expect(settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : String(outcome.reason)))).toEqual([4, 'Error: the client left', 8]);
    expect(groups).toEqual([[1], [2, 4]]);
  });
});
