import { describe, expect, it } from 'vitest';
import { BEFORE, BEFORE_MAX_CPU_FACTOR, BESIDE_BEFORE, REST } from '../src/target-names.js';
import { type Samples, beforeVerdicts } from '../src/verdicts.js';
import { roundsAtCpu as rounds } from './support/rounds.js';

const SCENARIO = 'create';

/** REST's before verdict of a run whose alternating and loaded-together rounds gave these CPU figures. */
const restVerdict = (alternating: { now: number[]; before: number[] }, together: { now: number[]; before: number[] }) => {
  const samples: Samples = {
    [SCENARIO]: {
      [REST]: rounds(alternating.now),
      [`${REST}${BEFORE}`]: rounds(alternating.before),
      [`${REST}${BESIDE_BEFORE}`]: rounds(together.now),
      [`${REST}${BEFORE}${BESIDE_BEFORE}`]: rounds(together.before),
    },
  };
  const verdict = beforeVerdicts(samples).find((candidate) => candidate.target.startsWith(`${REST} CPU`));
  if (!verdict) throw new Error('no before verdict for REST');
  return verdict;
};

describe('the before budget', () => {
  it('is judged on the rounds that loaded both builds at once, round by round', () => {
    // The machine slowed by a fifth between alternating rounds; loaded together, both felt it.
    const verdict = restVerdict(
      { now: [60, 72, 61], before: [50, 50, 50] },
      { now: [51, 61.2, 55.1], before: [50, 60, 55] },
    );
    expect(verdict.met).toBe(true);
    expect(verdict.figures).toContain('1.02×, both loaded at once');
    expect(verdict.figures).toContain('in alternating rounds: 1.22×');
  });

  it('fails when this build costs more than the budget in the rounds that loaded both at once', () => {
    const over = 1 + (BEFORE_MAX_CPU_FACTOR - 1) * 2;
    const verdict = restVerdict(
      { now: [50, 50, 50], before: [50, 50, 50] },
      { now: [50 * over, 60 * over, 55 * over], before: [50, 60, 55] },
    );
    expect(verdict.met).toBe(false);
    expect(verdict.figures).toContain(`${over.toFixed(2)}×, both loaded at once`);
  });
});
