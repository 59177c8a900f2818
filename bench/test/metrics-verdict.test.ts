import { describe, expect, it } from 'vitest';
import { METRICS_MAX_CPU_FACTOR, REST, REST_WITH_METRICS, TOGETHER } from '../src/target-names.js';
import { type Samples, verdicts } from '../src/verdicts.js';
import { roundsAtCpu as rounds } from './support/rounds.js';

const SCENARIO = 'get by id';

/** The metrics verdict of a run whose alternating and loaded-together rounds gave these CPU figures. */
const metricsVerdict = (alternating: { without: number[]; with: number[] }, together: { without: number[]; with: number[] }) => {
  const samples: Samples = {
    [SCENARIO]: {
      [REST]: rounds(alternating.without),
      [REST_WITH_METRICS]: rounds(alternating.with),
      [`${REST}${TOGETHER}`]: rounds(together.without),
      [`${REST_WITH_METRICS}${TOGETHER}`]: rounds(together.with),
    },
  };
  const verdict = verdicts(samples).find((candidate) => candidate.target.startsWith(REST_WITH_METRICS));
  if (!verdict) throw new Error('no metrics verdict');
  return verdict;
};

describe("metrics' CPU budget", () => {
  it('is judged on the rounds that loaded both at once, round by round', () => {
    // The machine slowed by a quarter between alternating rounds; loaded together, both felt it.
    const verdict = metricsVerdict(
      { without: [50, 50, 50], with: [62, 63, 61] },
      { without: [50, 65, 55], with: [51, 66.3, 56.1] },
    );
    expect(verdict.met).toBe(true);
    expect(verdict.figures).toContain('1.02×');
    expect(verdict.figures).toContain('in alternating rounds: 1.24×');
  });

  it('fails when metrics cost more than the budget in the rounds that loaded both at once', () => {
    const over = 1 + (METRICS_MAX_CPU_FACTOR - 1) * 2;
    const verdict = metricsVerdict(
      { without: [50, 50, 50], with: [50, 50, 50] },
      { without: [50, 60, 55], with: [50 * over, 60 * over, 55 * over] },
    );
    expect(verdict.met).toBe(false);
    expect(verdict.figures).toContain(`${over.toFixed(2)}×`);
  });
});
