import { describe, expect, it } from 'vitest';
import { FASTIFY_FEATURES_PEER, REST, REST_MIN_FEATURES_PEER_THROUGHPUT } from '../src/target-names.js';
import { type Samples, verdicts } from '../src/verdicts.js';

const LIST = 'list limit=20';
const GET = 'get by id';

/** Rounds of one target at these calls/s, 50 µs a call. */
const rounds = (callsPerSecond: number[]) => callsPerSecond.map((calls) => ({ callsPerSecond: calls, cpuMicrosPerCall: 50 }));

/** The verdicts of REST against the features-on peer, per scenario, when REST's rounds are these times the peer's. */
const featuresVerdicts = (ratios: Record<string, number[]>) => {
  const peer = [10_000, 8_000, 12_000];
  const samples: Samples = Object.fromEntries(
    Object.entries(ratios).map(([scenario, perRound]) => [
      scenario,
      { [REST]: rounds(perRound.map((ratio, round) => ratio * (peer[round] ?? 0))), [FASTIFY_FEATURES_PEER]: rounds(peer) },
    ]),
  );
  return verdicts(samples).filter((verdict) => verdict.target.startsWith(`${REST} ≥ ${REST_MIN_FEATURES_PEER_THROUGHPUT.toFixed(1)}× ${FASTIFY_FEATURES_PEER}`));
};

describe('REST against the Fastify peer with features on', () => {
  it('is judged per scenario, on the median of the per-round ratios, and met at the bound', () => {
    const judged = featuresVerdicts({
      [LIST]: [REST_MIN_FEATURES_PEER_THROUGHPUT, 3, 1],
      [GET]: [2, 2.5, 1.5],
    });
    expect(judged.map((verdict) => verdict.target)).toEqual([LIST, GET].map((scenario) => `${REST} ≥ 1.2× ${FASTIFY_FEATURES_PEER}, ${scenario}`));
    expect(judged.map((verdict) => verdict.met)).toEqual([true, true]);
    expect(judged[0]?.figures).toMatch(/^throughput 1\.20× /);
  });

  it('is not met on a scenario whose median ratio is below the bound, while the others are', () => {
    const judged = featuresVerdicts({
      [LIST]: [1.19, 1.19, 3],
      [GET]: [2, 2, 2],
    });
    expect(judged.map((verdict) => verdict.met)).toEqual([false, true]);
    expect(judged[0]?.figures).toMatch(/^throughput 1\.19× /);
  });
});
