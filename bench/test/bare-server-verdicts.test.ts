import { describe, expect, it } from 'vitest';
import { GET_BY_ID, PAGE_OF_100 } from '../src/scenarios.js';
import {
  BASELINE,
  BASELINE_POSTGRES,
  ON_POSTGRES,
  REST,
  REST_MIN_BASELINE_THROUGHPUT,
  REST_MIN_BASELINE_THROUGHPUT_GET_BY_ID,
  SERVICE_MAX_IDLE_RSS_EXTRA_MIB,
  SERVICE_MAX_PEAK_RSS_FACTOR,
} from '../src/target-names.js';
import { type Samples, memoryVerdicts, postgresVerdicts, verdicts } from '../src/verdicts.js';

const LIST = 'list limit=20';

/** Samples where `mine` runs at `ratio` times `theirs` in every round, at the same CPU per call. */
const samplesAt = (ratios: Record<string, number>, mine: string, theirs: string): Samples =>
  Object.fromEntries(
    Object.entries(ratios).map(([scenario, ratio]) => [
      scenario,
      {
        [mine]: [1, 2, 3].map((round) => ({ callsPerSecond: ratio * 1000 * round, cpuMicrosPerCall: 50 })),
        [theirs]: [1, 2, 3].map((round) => ({ callsPerSecond: 1000 * round, cpuMicrosPerCall: 50 })),
      },
    ]),
  );

describe('REST against the bare servers', () => {
  it('asks more of a get by id on SQLite than of the other scenarios', () => {
    const judged = verdicts(samplesAt({ [LIST]: REST_MIN_BASELINE_THROUGHPUT, [GET_BY_ID]: 0.89 }, REST, BASELINE)).filter((verdict) =>
      verdict.target.startsWith(`${REST} ≥ `) && verdict.target.includes(BASELINE),
    );
    expect(judged.map((verdict) => [verdict.target, verdict.met])).toEqual([
      [`${REST} ≥ 0.8× ${BASELINE}, ${LIST}`, true],
      [`${REST} ≥ ${REST_MIN_BASELINE_THROUGHPUT_GET_BY_ID.toFixed(1)}× ${BASELINE}, ${GET_BY_ID}`, false],
    ]);
  });

  it('asks every scenario on PostgreSQL to match the bare pg server', () => {
    const judged = postgresVerdicts(samplesAt({ [LIST]: 1, [PAGE_OF_100]: 0.99 }, `${REST}${ON_POSTGRES}`, BASELINE_POSTGRES));
    expect(judged.map((verdict) => verdict.met)).toEqual([true, false]);
    expect(judged.map((verdict) => verdict.target)).toEqual([
      `${REST}${ON_POSTGRES} ≥ 1.0× ${BASELINE_POSTGRES} and CPU per call ≤ 1.5× its, ${LIST}`,
      `${REST}${ON_POSTGRES} ≥ 1.0× ${BASELINE_POSTGRES} and CPU per call ≤ 1.5× its, ${PAGE_OF_100}`,
    ]);
  });
});

describe("the service's memory against the bare server's", () => {
  const bare = { idleMiB: 60, peakMiB: 100 };

  it('is met at both bounds', () => {
    const judged = memoryVerdicts('SQLite', { idleMiB: 60 + SERVICE_MAX_IDLE_RSS_EXTRA_MIB, peakMiB: Math.round(100 * SERVICE_MAX_PEAK_RSS_FACTOR) }, bare);
    expect(judged.map((verdict) => verdict.met)).toEqual([true, true]);
    expect(judged.map((verdict) => verdict.figures)).toEqual(['1.10× (110 MiB against 100)', '+25 MiB (85 MiB against 60)']);
  });

  it('is not met a MiB past either bound', () => {
    expect(memoryVerdicts('SQLite', { idleMiB: 60, peakMiB: 111 }, bare).map((verdict) => verdict.met)).toEqual([false, true]);
    expect(memoryVerdicts('PostgreSQL', { idleMiB: 86, peakMiB: 100 }, bare).map((verdict) => verdict.met)).toEqual([true, false]);
  });
});
