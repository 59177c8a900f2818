import { describe, expect, it } from 'vitest';
import { ON_POSTGRES, REST, THROUGH_PGBOUNCER, TRPC } from '../src/target-names.js';
import { type Samples, throughPgBouncerRatios } from '../src/verdicts.js';
import { roundsAtCpu } from './support/rounds.js';

describe('the service through PgBouncer against it direct', () => {
  it('gives each way of calling it, per scenario, its calls/s and CPU per call as multiples of direct', () => {
    const samples: Samples = {
      'get by id': {
        [`${REST}${ON_POSTGRES}`]: roundsAtCpu([100, 100, 100]),
        [`${REST}${THROUGH_PGBOUNCER}`]: roundsAtCpu([125, 125, 125]),
        [`${TRPC}${ON_POSTGRES}`]: roundsAtCpu([100, 100, 100]),
        [`${TRPC}${THROUGH_PGBOUNCER}`]: roundsAtCpu([80, 80, 80]),
      },
    };
    expect(throughPgBouncerRatios(samples, [REST, TRPC])).toEqual([
      { scenario: 'get by id', target: REST, throughput: 0.8, cpuPerCall: 1.25 },
      { scenario: 'get by id', target: TRPC, throughput: 1.25, cpuPerCall: 0.8 },
    ]);
  });
});
