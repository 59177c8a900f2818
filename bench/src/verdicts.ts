import { median } from './load.js';
import { BATCHED, GET_BY_ID, STREAMED, batchIsTargeted } from './scenarios.js';
import {
  BASELINE,
  BASELINE_POSTGRES,
  BASELINE_POSTGRES_THROUGH_PGBOUNCER,
  BEFORE,
  BEFORE_MAX_CPU_FACTOR,
  BESIDE_BEFORE,
  FASTIFY_FEATURES_PEER,
  FASTIFY_PEER,
  MATCHED_PEERS,
  METRICS_MAX_CPU_FACTOR,
  ON_POSTGRES,
  THROUGH_PGBOUNCER,
  PEERS,
  PGBOUNCER_MIN_THROUGHPUT,
  POSTGRES_MAX_CPU_FACTOR,
  POSTGRES_MIN_THROUGHPUT,
  REST,
  REST_MIN_BASELINE_THROUGHPUT,
  REST_MIN_BASELINE_THROUGHPUT_GET_BY_ID,
  REST_MIN_FEATURES_PEER_THROUGHPUT,
  REST_MIN_PEER_THROUGHPUT,
  REST_WITH_METRICS,
  SERVICE_MAX_IDLE_RSS_EXTRA_MIB,
  SERVICE_MAX_PEAK_RSS_FACTOR,
  STREAM_MAX_CPU_FACTOR,
  STREAM_MAX_P99_FACTOR,
  STREAM_MIN_THROUGHPUT,
  TOGETHER,
  TRPC,
} from './target-names.js';

/** Per scenario, per target, one entry per round. */
export type Samples = Record<string, Record<string, { callsPerSecond: number; cpuMicrosPerCall: number }[]>>;

export interface Verdict {
  target: string;
  met: boolean;
  figures: string;
}

const runsOf = (samples: Samples, scenario: string, target: string) => samples[scenario]?.[target] ?? [];

/**
 * Median of the per-round ratios of `mine` to `theirs`: the runs of one round are seconds apart,
 * so a slow spell of the machine divides out. Throughput is calls/s over calls/s; CPU is how many
 * times cheaper a call of `mine` is.
 */
const ratioOf = (samples: Samples, scenario: string, mine: string, theirs: string) => {
  const a = runsOf(samples, scenario, mine);
  const b = runsOf(samples, scenario, theirs);
  return {
    throughput: median(a.map((run, round) => run.callsPerSecond / (b[round]?.callsPerSecond ?? Number.NaN))),
    cpu: median(a.map((run, round) => (b[round]?.cpuMicrosPerCall ?? Number.NaN) / run.cpuMicrosPerCall)),
  };
};

/** Of the framework peers, the one with the higher median throughput in this scenario. */
export const fastestPeer = (samples: Samples, scenario: string): string => {
  const throughput = (peer: string) => median(runsOf(samples, scenario, peer).map((run) => run.callsPerSecond));
  return [...PEERS].sort((a, b) => throughput(b) - throughput(a))[0] ?? FASTIFY_PEER;
};

/** Every target's throughput as a multiple of the fastest peer's and of the bare baseline's. */
export const ratiosToReferences = (samples: Samples, scenario: string, target: string) => ({
  fastestPeer: ratioOf(samples, scenario, target, fastestPeer(samples, scenario)).throughput,
  baseline: ratioOf(samples, scenario, target, BASELINE).throughput,
});

const geometricMean = (values: number[]) => Math.exp(values.reduce((sum, value) => sum + Math.log(value), 0) / values.length);

const times = (value: number) => `${value.toFixed(2)}×`;

/**
 * The targets of the performance issue, on SQLite (the PostgreSQL rows are for reading): REST
 * against each of the peers it must match, per scenario, and against the Fastify peer on the
 * geometric mean of the scenarios; REST against the Fastify peer with the features on, per
 * scenario; tRPC against REST per call; metrics' CPU. Every line comparing throughput also gives
 * the target's ratio to the fastest peer and to the bare baseline.
 */
export const verdicts = (samples: Samples): Verdict[] => {
  const scenarios = Object.keys(samples);
  const references = (scenario: string, target: string) => {
    const { fastestPeer: peer, baseline } = ratiosToReferences(samples, scenario, target);
    return `${times(peer)} the fastest peer (${fastestPeer(samples, scenario)}), ${times(baseline)} the baseline`;
  };
  const compare = (scenario: string, mine: string, theirs: string, factor: number, unit = ''): Verdict => {
    const { throughput, cpu } = ratioOf(samples, scenario, mine, theirs);
    return {
      target: `${mine} ≥ ${factor.toFixed(1)}× ${theirs}${unit}, ${scenario}`,
      met: throughput >= factor,
      figures: `throughput ${times(throughput)} (CPU per call: ${times(cpu)} as cheap); ${references(scenario, mine)}`,
    };
  };
  const restToFastify = scenarios.map((scenario) => ratioOf(samples, scenario, REST, FASTIFY_PEER).throughput);
  const overall = geometricMean(restToFastify);
  const overallTo = (reference: 'fastestPeer' | 'baseline') =>
    geometricMean(scenarios.map((scenario) => ratiosToReferences(samples, scenario, REST)[reference]));
  return [
    // One verdict per peer and scenario: a peer REST trails stays visible when another is faster.
    ...MATCHED_PEERS.flatMap((peer) => scenarios.map((scenario) => compare(scenario, REST, peer, REST_MIN_PEER_THROUGHPUT))),
    ...scenarios.map((scenario) => compare(scenario, REST, FASTIFY_FEATURES_PEER, REST_MIN_FEATURES_PEER_THROUGHPUT)),
    ...scenarios.map((scenario) =>
      compare(scenario, REST, BASELINE, scenario === GET_BY_ID ? REST_MIN_BASELINE_THROUGHPUT_GET_BY_ID : REST_MIN_BASELINE_THROUGHPUT),
    ),
    {
      target: `${REST} ≥ 0.9× ${FASTIFY_PEER}, geometric mean of the ${scenarios.length} scenarios`,
      met: overall >= 0.9,
      figures: `${times(overall)} (${restToFastify.map(times).join(', ')}); ${times(overallTo('fastestPeer'))} the fastest peer, ${times(overallTo('baseline'))} the baseline`,
    },
    ...scenarios.map((scenario) => compare(scenario, TRPC, REST, 0.5, ' per call')),
    ...scenarios.filter(batchIsTargeted).map((scenario) => compare(scenario, BATCHED, REST, 2, ' per call')),
    ...scenarios.map((scenario): Verdict => {
      // ratioOf's cpu is how many times cheaper `mine` is; its inverse is the CPU factor. The
      // budget is judged on the rounds that load both processes at once (run-bench.ts).
      const factor = 1 / ratioOf(samples, scenario, `${REST_WITH_METRICS}${TOGETHER}`, `${REST}${TOGETHER}`).cpu;
      const alternating = 1 / ratioOf(samples, scenario, REST_WITH_METRICS, REST).cpu;
      return {
        target: `${REST_WITH_METRICS}: CPU per call ≤ ${METRICS_MAX_CPU_FACTOR}× without, ${scenario}`,
        met: factor <= METRICS_MAX_CPU_FACTOR,
        figures: `${times(factor)} the CPU per call of ${REST}, both loaded at once (in alternating rounds: ${times(alternating)})`,
      };
    }),
  ];
};

/** A process's RSS once started (before any load) and at its peak, in MiB. */
export interface Memory {
  idleMiB: number;
  peakMiB: number;
}

/**
 * The service's memory against the bare server of the same engine in the same run: its peak at
 * most SERVICE_MAX_PEAK_RSS_FACTOR times the bare server's, its idle RSS at most the bare server's
 * plus SERVICE_MAX_IDLE_RSS_EXTRA_MIB.
 */
export const memoryVerdicts = (engine: string, service: Memory, bare: Memory): Verdict[] => {
  const peakFactor = service.peakMiB / bare.peakMiB;
  const idleExtra = service.idleMiB - bare.idleMiB;
  return [
    {
      target: `apps/api peak RSS ≤ ${SERVICE_MAX_PEAK_RSS_FACTOR.toFixed(1)}× the bare server's, ${engine}`,
      met: peakFactor <= SERVICE_MAX_PEAK_RSS_FACTOR,
      figures: `${times(peakFactor)} (${String(service.peakMiB)} MiB against ${String(bare.peakMiB)})`,
    },
    {
      target: `apps/api idle RSS ≤ the bare server's + ${String(SERVICE_MAX_IDLE_RSS_EXTRA_MIB)} MiB, ${engine}`,
      met: idleExtra <= SERVICE_MAX_IDLE_RSS_EXTRA_MIB,
      figures: `+${String(idleExtra)} MiB (${String(service.idleMiB)} MiB against ${String(bare.idleMiB)})`,
    },
  ];
};

/** The service's targets that a run with a before checkout (bench-settings.ts) also runs on that checkout's service. */
export const COMPARED_WITH_BEFORE = [REST, TRPC, BATCHED, STREAMED] as const;

/**
 * Per scenario, the CPU per call of REST and of each tRPC mode (a lone call, a batch, a streamed
 * batch) on this checkout's service against the same target on the before checkout's, now ÷
 * before: at most BEFORE_MAX_CPU_FACTOR, judged on the rounds that load both at once (run-bench.ts).
 */
export const beforeVerdicts = (samples: Samples): Verdict[] =>
  COMPARED_WITH_BEFORE.flatMap((target) =>
    Object.keys(samples).map((scenario): Verdict => {
      // With "before" as `mine`, ratioOf's cpu is the median of the per-round ratios now ÷ before.
      const factor = ratioOf(samples, scenario, `${target}${BEFORE}${BESIDE_BEFORE}`, `${target}${BESIDE_BEFORE}`).cpu;
      const alternating = ratioOf(samples, scenario, `${target}${BEFORE}`, target).cpu;
      return {
        target: `${target} CPU per call ≤ ${String(BEFORE_MAX_CPU_FACTOR)}× before, ${scenario}`,
        met: factor <= BEFORE_MAX_CPU_FACTOR,
        figures: `${times(factor)}, both loaded at once (in alternating rounds: ${times(alternating)})`,
      };
    }),
  );

/** One row of the run's table, as far as the stream verdicts read it. */
interface RowFigures {
  scenario: string;
  target: string;
  'p99 ms': number;
  failures: number;
}

/**
 * A batch as httpBatchStreamLink sends it against the same batch as httpBatchLink sends it, both
 * on the same service in the same run, per targeted scenario: calls/s at least
 * STREAM_MIN_THROUGHPUT of the plain batch's, CPU per call at most STREAM_MAX_CPU_FACTOR of its,
 * p99 at most STREAM_MAX_P99_FACTOR of its, and no failed or shed request.
 */
export const streamVerdicts = (samples: Samples, rows: readonly RowFigures[]): Verdict[] =>
  Object.keys(samples)
    .filter(batchIsTargeted)
    .map((scenario): Verdict => {
      const { throughput, cpu } = ratioOf(samples, scenario, STREAMED, BATCHED);
      const cpuFactor = 1 / cpu;
      const row = (target: string) => rows.find((candidate) => candidate.scenario === scenario && candidate.target === target);
      const p99Factor = (row(STREAMED)?.['p99 ms'] ?? Number.NaN) / (row(BATCHED)?.['p99 ms'] ?? Number.NaN);
      const failures = row(STREAMED)?.failures ?? Number.NaN;
      return {
        target: `${STREAMED} ≥ ${STREAM_MIN_THROUGHPUT}× ${BATCHED}, CPU per call ≤ ${STREAM_MAX_CPU_FACTOR}×, p99 ≤ ${STREAM_MAX_P99_FACTOR}×, no failures, ${scenario}`,
        met: throughput >= STREAM_MIN_THROUGHPUT && cpuFactor <= STREAM_MAX_CPU_FACTOR && p99Factor <= STREAM_MAX_P99_FACTOR && failures === 0,
        figures: `throughput ${times(throughput)}, CPU per call ${times(cpuFactor)}, p99 ${times(p99Factor)}, ${failures} failed or shed`,
      };
    });

/**
 * Each way of calling the service through PgBouncer in transaction mode against the bare server
 * through the same PgBouncer, per scenario: its calls/s and CPU per call as multiples of the bare
 * server's (medians of per-round ratios), so the hop weighs on both sides alike.
 */
export const throughPgBouncerRatios = (samples: Samples, names: readonly string[]) =>
  Object.keys(samples).flatMap((scenario) =>
    names.map((name) => {
      const { throughput, cpu } = ratioOf(samples, scenario, `${name}${THROUGH_PGBOUNCER}`, BASELINE_POSTGRES_THROUGH_PGBOUNCER);
      return { scenario, target: name, throughput: Number(throughput.toFixed(2)), cpuPerCall: Number((1 / cpu).toFixed(2)) };
    }),
  );

/** REST through PgBouncer against the bare server through it, per scenario: its throughput. */
export const pgbouncerVerdicts = (samples: Samples): Verdict[] =>
  Object.keys(samples).map((scenario): Verdict => {
    const { throughput } = ratioOf(samples, scenario, `${REST}${THROUGH_PGBOUNCER}`, BASELINE_POSTGRES_THROUGH_PGBOUNCER);
    return {
      target: `${REST}${THROUGH_PGBOUNCER} ≥ ${PGBOUNCER_MIN_THROUGHPUT.toFixed(1)}× ${BASELINE_POSTGRES_THROUGH_PGBOUNCER}, ${scenario}`,
      met: throughput >= PGBOUNCER_MIN_THROUGHPUT,
      figures: `throughput ${times(throughput)}`,
    };
  });

/**
 * The PostgreSQL targets: REST on PostgreSQL against the bare node:http + pg server on the same
 * database server, per scenario: its throughput (median of per-round ratios) and its CPU per call.
 */
export const postgresVerdicts = (samples: Samples): Verdict[] =>
  Object.keys(samples).map((scenario): Verdict => {
    const { throughput, cpu } = ratioOf(samples, scenario, `${REST}${ON_POSTGRES}`, BASELINE_POSTGRES);
    // ratioOf's cpu is how many times cheaper REST is; its inverse, how many times dearer.
    const cpuFactor = 1 / cpu;
    return {
      target: `${REST}${ON_POSTGRES} ≥ ${POSTGRES_MIN_THROUGHPUT.toFixed(1)}× ${BASELINE_POSTGRES} and CPU per call ≤ ${POSTGRES_MAX_CPU_FACTOR}× its, ${scenario}`,
      met: throughput >= POSTGRES_MIN_THROUGHPUT && cpuFactor <= POSTGRES_MAX_CPU_FACTOR,
      figures: `throughput ${times(throughput)}, CPU per call ${times(cpuFactor)}`,
    };
  });
