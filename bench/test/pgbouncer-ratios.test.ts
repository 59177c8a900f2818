import { describe, expect, it } from 'vitest';
import { BASELINE_POSTGRES_THROUGH_PGBOUNCER, REST, THROUGH_PGBOUNCER, TRPC } from '../src/target-names.js';
import { type Samples, pgbouncerVerdicts, throughPgBouncerRatios } from '../src/verdicts.js';
import { roundsAtCpu } from './support/rounds.js';

describe('the service through PgBouncer against the bare server through it', () => {
  const samples: Samples = {
    'get by id': {
      [BASELINE_POSTGRES_THROUGH_PGBOUNCER]: roundsAtCpu([100, 100, 100]),
      [`${REST}${THROUGH_PGBOUNCER}`]: roundsAtCpu([125, 125, 125]),
      [`${TRPC}${THROUGH_PGBOUNCER}`]: roundsAtCpu([80, 80, 80]),
    },
    'list of 20': {
      [BASELINE_POSTGRES_THROUGH_PGBOUNCER]: roundsAtCpu([100, 100, 100]),
      [`${REST}${THROUGH_PGBOUNCER}`]: roundsAtCpu([110, 110, 110]),
      [`${TRPC}${THROUGH_PGBOUNCER}`]: roundsAtCpu([110, 110, 110]),
    },
  };

  it('gives each way of calling it, per scenario, its calls/s and CPU per call as multiples of the bare server\'s', () => {
    expect(throughPgBouncerRatios({ 'get by id': samples['get by id'] ?? {} }, [REST, TRPC])).toEqual([
      { scenario: 'get by id', target: REST, throughput: 0.8, cpuPerCall: 1.25 },
      { scenario: 'get by id', target: TRPC, throughput: 1.25, cpuPerCall: 0.8 },
    ]);
  });

  it('judges REST at 0.9x the bare server\'s throughput through the same pooler', () => {
    expect(pgbouncerVerdicts(samples).map((verdict) => verdict.met)).toEqual([false, true]);
  });
});
