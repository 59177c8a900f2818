import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { soakSeconds } from './bench-settings.js';
import { scenarios } from './scenarios.js';
import { seedDatabase } from './seed.js';
import { startTarget } from './target-process.js';

const SEEDED = 10_000;
const SECONDS = soakSeconds();
const CONNECTIONS = 64;
const SAMPLE_EVERY_MS = 2_000;
const RESULTS = fileURLToPath(new URL('../results', import.meta.url));

/** Least-squares slope of y over x. */
const slope = (points: { x: number; y: number }[]) => {
  const n = points.length;
  const meanX = points.reduce((sum, point) => sum + point.x, 0) / n;
  const meanY = points.reduce((sum, point) => sum + point.y, 0) / n;
  const covariance = points.reduce((sum, point) => sum + (point.x - meanX) * (point.y - meanY), 0);
  const variance = points.reduce((sum, point) => sum + (point.x - meanX) ** 2, 0);
  return variance === 0 ? 0 : covariance / variance;
};

const folder = mkdtempSync(join(tmpdir(), 'petstore-soak-'));
try {
  const file = join(folder, 'soak.db');
  const { apiKey } = await seedDatabase(file, SEEDED);
  // Rate limiting off: the soak looks for errors and leaks, and 429s would be neither.
  const service = await startTarget('service', { database: { file }, apiKey, service: { rateLimitPerMinute: '0' } });

  const mix = scenarios(SEEDED).flatMap((scenario) => [scenario.rest, scenario.trpc]);
  const samples: { second: number; rssMiB: number }[] = [];
  const started = Date.now();
  const sampler = setInterval(() => {
    samples.push({ second: (Date.now() - started) / 1000, rssMiB: Number(service.rssMiB().toFixed(1)) });
  }, SAMPLE_EVERY_MS);

  process.stderr.write(`Soaking for ${SECONDS} s at ${CONNECTIONS} connections…\n`);
  const result = await autocannon({
    url: service.url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { authorization: `Bearer ${apiKey}` },
    requests: mix,
  });
  clearInterval(sampler);
  await service.stop();

  const errors = result.non2xx + result.errors + result.timeouts;
  const firstHalf = samples.filter((sample) => sample.second <= SECONDS / 2);
  const secondHalf = samples.filter((sample) => sample.second > SECONDS / 2);
  const maxOf = (part: typeof samples) => Math.max(...part.map((sample) => sample.rssMiB));
  const growthMiBPerMinute = slope(secondHalf.map((sample) => ({ x: sample.second, y: sample.rssMiB }))) * 60;
  const summary = {
    requests: result.requests.total,
    requestsPerSecond: Math.round(result.requests.average),
    errors,
    non2xx: result.non2xx,
    rssMiB: { start: samples[0]?.rssMiB, end: samples.at(-1)?.rssMiB, maxFirstHalf: maxOf(firstHalf), maxSecondHalf: maxOf(secondHalf) },
    secondHalfGrowthMiBPerMinute: Number(growthMiBPerMinute.toFixed(2)),
  };
  console.log(summary);
  console.log('RSS over time (s → MiB):', samples.map((sample) => `${Math.round(sample.second)}→${sample.rssMiB}`).join(' '));
  // "No growth": the second half stays within the first half's peak, and its trend is flat.
  const steady = summary.rssMiB.maxSecondHalf <= summary.rssMiB.maxFirstHalf * 1.05 && growthMiBPerMinute < 2;
  console.log(`${errors === 0 ? 'MET    ' : 'NOT MET'}  no errors: ${errors} of ${summary.requests} requests`);
  console.log(`${steady ? 'MET    ' : 'NOT MET'}  no RSS growth in the second half: peak ${summary.rssMiB.maxSecondHalf} vs ${summary.rssMiB.maxFirstHalf} MiB, trend ${summary.secondHalfGrowthMiBPerMinute} MiB/min`);

  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'soak.json'), `${JSON.stringify({ date: new Date().toISOString(), seconds: SECONDS, connections: CONNECTIONS, ...summary, samples }, null, 2)}\n`);
  console.log('Wrote bench/results/soak.json');
  if (errors > 0 || !steady) process.exitCode = 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
}
