import type { Histogram, Registry } from 'prom-client';

type Labels = { method: string; route: string; status: string };

/** One method, route and status: its count per bucket (not yet cumulative), the last one past every bound. */
interface Series {
  labels: Labels;
  counts: number[];
  sum: number;
  count: number;
}

export interface RequestDurations {
  observe(method: string, route: string, status: number, seconds: number): void;
}

export interface RequestDurationsOptions {
  name: string;
  help: string;
  /** Upper bounds in seconds, ascending. */
  buckets: readonly number[];
  registers: Registry[];
}

/**
 * A Prometheus histogram of request durations by method, route template and status, counted in
 * the process and rendered by the registry on scrape exactly as prom-client renders its own
 * Histogram (request-durations.test.ts compares the two). prom-client's own child `observe`
 * hashes the child's labels again on every call; a request here does three map lookups and
 * adds to one bucket (docs/decisions/2026-11-23-metrics-cost-over-budget.md).
 */
export const createRequestDurations = ({ name, help, buckets, registers }: RequestDurationsOptions): RequestDurations => {
  const bySeries = new Map<string, Map<string, Map<number, Series>>>();
  /** Every series in the order it first appeared, as prom-client lists them. */
  const ordered: Series[] = [];
  const seriesFor = (method: string, route: string, status: number): Series => {
    let byRoute = bySeries.get(method);
    if (!byRoute) bySeries.set(method, (byRoute = new Map<string, Map<number, Series>>()));
    let byStatus = byRoute.get(route);
    if (!byStatus) byRoute.set(route, (byStatus = new Map<number, Series>()));
    let series = byStatus.get(status);
    if (!series) {
      series = { labels: { method, route, status: String(status) }, counts: new Array<number>(buckets.length + 1).fill(0), sum: 0, count: 0 };
      byStatus.set(status, series);
      ordered.push(series);
    }
    return series;
  };
  /** The samples as prom-client's Histogram gives them to its registry: buckets, +Inf, sum, count per series. */
  const samples = () =>
    ordered.flatMap(({ labels, counts, sum, count }) => {
      let cumulative = 0;
      const bucketSamples = buckets.map((bound, index) => {
        cumulative += counts[index] ?? 0;
        return { labels: { le: bound }, sharedLabels: labels, value: cumulative, metricName: `${name}_bucket`, exemplar: null };
      });
      return [
        ...bucketSamples,
        { labels: { le: '+Inf' }, sharedLabels: labels, value: count, metricName: `${name}_bucket`, exemplar: null },
        { labels: {}, sharedLabels: labels, value: sum, metricName: `${name}_sum` },
        { labels: {}, sharedLabels: labels, value: count, metricName: `${name}_count` },
      ];
    });
  const rendered = <Sample>(values: Sample[]) => ({ name, help, type: 'histogram', aggregator: 'sum', values });
  const metric = {
    name,
    getForPromString: async () => rendered(samples()),
    get: async () => rendered(samples().map(({ labels, sharedLabels, ...sample }) => ({ ...sample, labels: { ...labels, ...sharedLabels } }))),
    reset: () => {
      bySeries.clear();
      ordered.length = 0;
    },
  };
  // The registry renders any metric that answers get(); its types name only prom-client's classes.
  for (const registry of registers) registry.registerMetric(metric as unknown as Histogram);

  return {
    observe: (method, route, status, seconds) => {
      const series = seriesFor(method, route, status);
      let bucket = 0;
      while (bucket < buckets.length && seconds > (buckets[bucket] ?? Number.POSITIVE_INFINITY)) bucket++;
      series.counts[bucket] = (series.counts[bucket] ?? 0) + 1;
      series.sum += seconds;
      series.count++;
    },
  };
};
