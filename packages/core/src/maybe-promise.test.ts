import { describe, expect, it } from 'vitest';
import { andThen, attempt, settle } from './maybe-promise.js';

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

  it('attempts a run: its value or its failure at once when it answers at once, once it settles when it is a promise', async () => {
    const failed = (error: unknown) => `failed: ${(error as Error).message}`;
    expect(attempt(() => 2, (value) => `got ${String(value)}`, failed)).toBe('got 2');
    expect(
      attempt(
        () => {
          throw new Error('refused');
        },
        () => 'got',
        failed,
      ),
    ).toBe('failed: refused');
    const later = attempt(() => Promise.resolve(2), (value) => `got ${String(value)}`, failed);
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe('got 2');
    expect(await attempt(() => Promise.reject(new Error('gone')), () => 'got', failed)).toBe('failed: gone');
    // A failure of `next` is its own, not `failed`'s.
    expect(() =>
      attempt(
        () => 2,
        () => {
          throw new Error('next broke');
        },
        failed,
      ),
    ).toThrow('next broke');
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
