import autocannon from 'autocannon';
import type { Request } from './scenarios.js';

export interface LoadResult {
  requestsPerSecond: number;
  /** The target's CPU time per request served, in µs. */
  cpuMicrosPerRequest: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses outside 2xx, and connection errors or timeouts: all must be 0. */
  failures: number;
  /** What the failures were, e.g. `503 × 120, timeout × 2`; empty when there were none. */
  failureKinds: string;
}

/** autocannon's counts by status, and its errors and timeouts, as one line of what went wrong. */
const describeFailures = (result: autocannon.Result) =>
  [
    ...Object.entries(result.statusCodeStats ?? {})
      .filter(([status]) => !status.startsWith('2'))
      .map(([status, { count = 0 }]) => `${status} × ${String(count)}`),
    ...(result.errors > 0 ? [`error × ${String(result.errors)}`] : []),
    ...(result.timeouts > 0 ? [`timeout × ${String(result.timeouts)}`] : []),
  ].join(', ');

export interface LoadOptions {
  url: string;
  /** The target's CPU clock, read before and after the run. */
  cpuSeconds: () => number;
  apiKey: string;
  request: Request;
  connections: number;
  seconds: number;
}

/** Drives one target with autocannon from this process; only 127.0.0.1 is ever the target. */
export const load = async ({ url, cpuSeconds, apiKey, request, connections, seconds }: LoadOptions): Promise<LoadResult> => {
  if (!url.startsWith('http://127.0.0.1:')) throw new Error(`refusing to load ${url}: loopback only`);
  const cpuBefore = cpuSeconds();
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${apiKey}` },
    requests: [request],
  });
  return {
    requestsPerSecond: result.requests.average,
    cpuMicrosPerRequest: ((cpuSeconds() - cpuBefore) * 1e6) / Math.max(result.requests.total, 1),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    failureKinds: describeFailures(result),
  };
};

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};
