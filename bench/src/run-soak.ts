import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { BENCH_VARIABLES, benchRedisUrl, benchSettings, soakSeconds } from './bench-settings.js';
import { scenarios } from './scenarios.js';
import { seedDatabase } from './seed.js';
import { seedPostgres } from './seed-postgres.js';
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

// On PostgreSQL the service runs as several instances do in production, with Redis for the rate
// limit's counts; on SQLite, as `npx pnpm start` runs it.
const onPostgres = benchSettings().postgres;
const engine = onPostgres ? 'PostgreSQL' : 'SQLite';
const folder = mkdtempSync(join(tmpdir(), 'petstore-soak-'));
const postgres = onPostgres ? await seedPostgres(SEEDED) : undefined;
try {
  const file = join(folder, 'soak.db');
  const { apiKey } = postgres ?? (await seedDatabase(file, SEEDED));
  // Rate limiting off: the soak looks for errors and leaks, and 429s would be neither.
  const service = await startTarget('service', {
    database: postgres ? { url: postgres.url } : { file },
    apiKey,
    service: {
      rateLimitPerMinute: '0',
      ...(postgres && { redisUrl: benchRedisUrl(), redisKeyPrefix: `soak:${randomBytes(6).toString('hex')}:` }),
    },
  });

  const mix = scenarios(SEEDED).flatMap((scenario) => [scenario.rest, scenario.trpc]);
  const samples: { second: number; rssMiB: number }[] = [];
  const started = Date.now();
  const sampler = setInterval(() => {
    samples.push({ second: (Date.now() - started) / 1000, rssMiB: Number(service.rssMiB().toFixed(1)) });
  }, SAMPLE_EVERY_MS);

  process.stderr.write(
    `Soaking the service on ${engine}, Node ${process.version}, for ${SECONDS} s at ${CONNECTIONS} connections (${BENCH_VARIABLES.postgres}=1: on PostgreSQL)…\n`,
  );
  const result = await autocannon({
    url: service.url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { authorization: `Bearer ${apiKey}` },
    requests: mix,
  });
  clearInterval(sampler);
  const stopped = await service.stop();

  const errors = result.non2xx + result.errors + result.timeouts;
  const firstHalf = samples.filter((sample) => sample.second <= SECONDS / 2);
  const secondHalf = samples.filter((sample) => sample.second > SECONDS / 2);
  const maxOf = (part: typeof samples) => Math.max(...part.map((sample) => sample.rssMiB));
  const growthMiBPerMinute = slope(secondHalf.map((sample) => ({ x: sample.second, y: sample.rssMiB }))) * 60;
  const summary = {
    node: process.version,
    engine,
    requests: result.requests.total,
    requestsPerSecond: Math.round(result.requests.average),
    errors,
    non2xx: result.non2xx,
    rssMiB: { start: samples[0]?.rssMiB, end: samples.at(-1)?.rssMiB, maxFirstHalf: maxOf(firstHalf), maxSecondHalf: maxOf(secondHalf) },
    secondHalfGrowthMiBPerMinute: Number(growthMiBPerMinute.toFixed(2)),
    exitOnSigterm: stopped,
  };
  console.log(summary);
  console.log('RSS over time (s → MiB):', samples.map((sample) => `${Math.round(sample.second)}→${sample.rssMiB}`).join(' '));
  // "No growth": the second half stays within the first half's peak, and its trend is flat.
  const steady = summary.rssMiB.maxSecondHalf <= summary.rssMiB.maxFirstHalf * 1.05 && growthMiBPerMinute < 2;
  console.log(`${errors === 0 ? 'MET    ' : 'NOT MET'}  no errors: ${errors} of ${summary.requests} requests`);
  const cleanExit = stopped.code === 0 && stopped.signal === null;
  console.log(`${cleanExit ? 'MET    ' : 'NOT MET'}  a clean exit on SIGTERM: code ${String(stopped.code)}, signal ${String(stopped.signal)}`);
  console.log(`${steady ? 'MET    ' : 'NOT MET'}  no RSS growth in the second half: peak ${summary.rssMiB.maxSecondHalf} vs ${summary.rssMiB.maxFirstHalf} MiB, trend ${summary.secondHalfGrowthMiBPerMinute} MiB/min`);

  mkdirSync(RESULTS, { recursive: true });
  const written = `soak-${engine.toLowerCase()}.json`;
  writeFileSync(join(RESULTS, written), `${JSON.stringify({ date: new Date().toISOString(), seconds: SECONDS, connections: CONNECTIONS, ...summary, samples }, null, 2)}\n`);
  console.log(`Wrote bench/results/${written}`);
  if (errors > 0 || !steady || !cleanExit) process.exitCode = 1;
} finally {
  rmSync(folder, { recursive: true, force: true });
  await postgres?.drop();
}
