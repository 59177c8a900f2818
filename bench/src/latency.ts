import { Agent, request } from 'node:http';

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One GET on a kept-alive connection; resolves with its Link header and its time in µs. */
export const timedGet = (url: string, apiKey: string) =>
  new Promise<{ micros: number; link: string | undefined; status: number }>((resolve, reject) => {
    const started = process.hrtime.bigint();
    request(url, { agent, headers: { authorization: `Bearer ${apiKey}` } }, (res) => {
      res.resume();
      res.on('end', () => {
        resolve({
          micros: Number(process.hrtime.bigint() - started) / 1000,
          link: [res.headers.link].flat().join(', ') || undefined,
          status: res.statusCode ?? 0,
        });
      });
    })
      .on('error', reject)
      .end();
  });

/** Latencies of `count` requests in a row, one at a time: the cost of a request, not of a queue. */
export const sequentialLatencies = async (url: string, apiKey: string, count: number) => {
  const latencies: number[] = [];
  for (let index = 0; index < count; index++) {
    const { micros, status } = await timedGet(url, apiKey);
    if (status !== 200) throw new Error(`${url} answered ${status}`);
    latencies.push(micros);
  }
  return latencies;
};

export const percentile = (values: number[], fraction: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
};
