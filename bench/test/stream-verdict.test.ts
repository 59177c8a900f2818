import { describe, expect, it } from 'vitest';
import { BATCHED, STREAMED } from '../src/scenarios.js';
import { STREAM_MAX_CPU_FACTOR, STREAM_MAX_P99_FACTOR, STREAM_MIN_THROUGHPUT } from '../src/target-names.js';
import { type Samples, streamVerdicts } from '../src/verdicts.js';

const SCENARIO = 'get by id';

/** Rounds of one target at these calls/s and CPU µs per call. */
const rounds = (callsPerSecond: number, cpuMicrosPerCall: number) => [1, 2, 3].map(() => ({ callsPerSecond, cpuMicrosPerCall }));

/** The stream verdict of a run where the streamed batch did this, against a plain batch at 10,000 calls/s, 10 µs a call, p99 5 ms. */
const streamVerdict = ({ callsPerSecond = 10_000, cpu = 10, p99 = 5, failures = 0 }) => {
  const samples: Samples = { [SCENARIO]: { [BATCHED]: rounds(10_000, 10), [STREAMED]: rounds(callsPerSecond, cpu) } };
  const rows = [
    { scenario: SCENARIO, target: BATCHED, 'p99 ms': 5, failures: 0 },
    { scenario: SCENARIO, target: STREAMED, 'p99 ms': p99, failures },
  ];
  const [verdict] = streamVerdicts(samples, rows);
  if (!verdict) throw new Error('no stream verdict');
  return verdict;
};

describe('the streamed batch against the plain one', () => {
  it('is met at the bounds', () => {
    const verdict = streamVerdict({ callsPerSecond: 10_000 * STREAM_MIN_THROUGHPUT, cpu: 10 * STREAM_MAX_CPU_FACTOR, p99: 5 * STREAM_MAX_P99_FACTOR });
    expect(verdict.met).toBe(true);
    expect(verdict.figures).toBe('throughput 0.80×, CPU per call 1.25×, p99 2.00×, 0 failed or shed');
  });

  it.for([
    { label: 'fewer calls/s', run: { callsPerSecond: 7_900 } },
    { label: 'dearer calls', run: { cpu: 12.6 } },
    { label: 'a longer tail', run: { p99: 10.1 } },
    { label: 'a failed or shed request', run: { failures: 1 } },
  ])('is not met with $label', ({ run }) => {
    expect(streamVerdict(run).met).toBe(false);
  });

  it('leaves the page of 100 out, as the batch verdicts do', () => {
    const samples: Samples = { 'list status=available limit=100': { [BATCHED]: rounds(1, 1), [STREAMED]: rounds(1, 1) } };
    expect(streamVerdicts(samples, [])).toEqual([]);
  });
});
