import { median } from './load.js';
import { BATCHED } from './scenarios.js';

/** Per scenario, per target, one entry per round. */
export type Samples = Record<string, Record<string, { callsPerSecond: number; cpuMicrosPerCall: number }[]>>;

export interface Verdict {
  target: string;
  met: boolean;
  figures: string;
}

/**
 * The targets of the performance issue, on the SQLite default (PostgreSQL rows are for reading). Each comparison is the median of per-round ratios: the
 * two runs of a round are seconds apart, so a slow spell of the machine divides out.
 */
export const verdicts = (samples: Samples, serviceRssMiB: number): Verdict[] => {
  const scenarios = Object.keys(samples);
  const compare = (scenario: string, mine: string, theirs: string, factor = 1): Verdict => {
    const a = samples[scenario]?.[mine] ?? [];
    const b = samples[scenario]?.[theirs] ?? [];
    const throughput = median(a.map((run, round) => run.callsPerSecond / (b[round]?.callsPerSecond ?? Number.NaN)));
    const cpu = median(a.map((run, round) => (b[round]?.cpuMicrosPerCall ?? Number.NaN) / run.cpuMicrosPerCall));
    return {
      target: `${mine} ≥ ${factor === 1 ? '' : `${factor}× `}${theirs}, ${scenario}`,
      met: throughput >= factor,
      figures: `throughput ${throughput.toFixed(2)}× (CPU per call: ${cpu.toFixed(2)}× as cheap)`,
    };
  };
  return [
    compare('list limit=20', 'REST /v1', 'node:http baseline', 0.6),
    compare('create', 'REST /v1', 'node:http baseline', 0.6),
    ...scenarios.map((scenario) => compare(scenario, 'REST /v1', 'Express + zod peer')),
    ...scenarios.map((scenario) => compare(scenario, 'tRPC /trpc', 'REST /v1')),
    ...scenarios.map((scenario) => compare(scenario, BATCHED, 'REST /v1')),
    { target: 'apps/api peak RSS ≤ 150 MiB', met: serviceRssMiB <= 150, figures: `${serviceRssMiB} MiB` },
  ];
};
