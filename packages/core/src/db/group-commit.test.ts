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
    const results = await Promise.all([1, 2, 3, 4].map(commit));
    expect(results).toEqual([2, 4, 6, 8]);
    expect(groups).toEqual([[1], [2, 3, 4]]);
  });

  it('with gather, waits for the items read together and writes them as one group', async () => {
    const { groups, write } = recording();
    const commit = groupCommit(write, { gather: afterReadyCallbacks });
    const first = Promise.all([1, 2, 3].map(commit));
    // Arriving in a later turn of the event loop: the next group.
    const later = new Promise<number[]>((resolve) => {
      setImmediate(() => {
        resolve(Promise.all([4, 5].map(commit)));
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
    const failed = await Promise.allSettled([1, 2].map(commit));
    expect(failed.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(await commit(3)).toBe(3);
  });
});
