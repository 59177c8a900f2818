import { describe, expect, it } from 'vitest';
import { andThen, settle } from './maybe-promise.js';

describe('a value now or later', () => {
  it('goes on at once with a value, and makes no promise', () => {
    let seen: number | undefined;
    const next = andThen(2, (value) => (seen = value * 3));
    expect([next, seen]).toEqual([6, 6]);
  });

  it('goes on once a promise settles, and passes its rejection on', async () => {
    const later = andThen(Promise.resolve(2), (value) => value * 3);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(6);
    await expect(andThen(Promise.reject(new Error('gone')), () => 1)).rejects.toThrow('gone');
  });

  it('settles a value, a promise and a throw alike, as a promise', async () => {
    await expect(settle(() => 1)).resolves.toBe(1);
    await expect(settle(() => Promise.resolve(2))).resolves.toBe(2);
    await expect(
      settle(() => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
  });
});
