import { describe, expect, it } from 'vitest';
import { jsonLines } from './json-lines.js';

const pendingImmediates = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Immediate').length;

describe('jsonLines', () => {
  it('answers a batch whose calls are all in with one piece, and leaves no Immediate holding them', async () => {
    const before = pendingImmediates();
    const pieces = jsonLines([Promise.resolve(1), Promise.resolve(2)], (value) => ({ value }));
    const first = await pieces.next();
    // Still in the turn the head was made in: an Immediate left waiting would keep every answer
    // alive until the loop reaches it, which under load ages them into the old generation.
    expect(pendingImmediates()).toBe(before);
    expect(first).toEqual({ done: false, value: { text: '{"0":[[{"value":1}]],"1":[[{"value":2}]]}\n', last: true } });
  });

  it('writes the head at the end of the turn while a call still runs, then its line when it answers', async () => {
    let answerLate: (value: number) => void = () => undefined;
    const late = new Promise<number>((resolve) => (answerLate = resolve));
    const pieces = jsonLines([Promise.resolve(1), late], (value) => value);
    const head = await pieces.next();
    expect(head.value).toEqual({ text: '{"0":[[1]],"1":[[0],[null,0,1]]}\n', last: false });
    answerLate(2);
    expect((await pieces.next()).value).toEqual({ text: '[1,0,[[2]]]\n', last: true, calls: [1] });
  });
});
