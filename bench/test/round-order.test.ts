import { describe, expect, it } from 'vitest';
import { roundOrder } from '../src/round-order.js';

describe('the order of targets in a round', () => {
  const targets = ['REST', 'tRPC', 'Fastify', 'Hono', 'baseline'];

  it('runs every target once a round, as listed in the first', () => {
    for (const round of [1, 2, 3, 4, 7]) expect([...roundOrder(targets, round)].sort()).toEqual([...targets].sort());
    expect(roundOrder(targets, 1)).toEqual(targets);
  });

  it('gives every target the same mean place over each pair of rounds', () => {
    for (const first of [1, 3, 5]) {
      const places = targets.map((target) => roundOrder(targets, first).indexOf(target) + roundOrder(targets, first + 1).indexOf(target));
      expect(new Set(places)).toEqual(new Set([targets.length - 1]));
    }
  });

  it('leaves the list it is given as it was', () => {
    const listed = [...targets];
    roundOrder(listed, 2);
    expect(listed).toEqual(targets);
  });
});
