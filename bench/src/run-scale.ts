import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scaleSettings } from './bench-settings.js';
import { percentile, sequentialLatencies, timedGet } from './latency.js';
import { seedDatabase } from './seed.js';
import { type TargetProcess, startTarget } from './target-process.js';

const SIZES = [1_000, 1_000_000];
const settings = scaleSettings();
const MAX_RATIO = 1.3;
const RESULTS = fileURLToPath(new URL('../results', import.meta.url));

const CASES = [
  { name: 'first page', path: '/v1/pets?limit=20', depth: 0 },
  { name: '5 pages deep', path: '/v1/pets?limit=20', depth: 5 },
  { name: 'filtered, first page', path: '/v1/pets?status=available&limit=20', depth: 0 },
  { name: 'filtered, 5 pages deep', path: '/v1/pets?status=available&limit=20', depth: 5 },
];

/** The URL `depth` pages on from `path`, reached the way a client would: through `rel="next"` links. */
const followLinks = async (service: TargetProcess, apiKey: string, path: string, depth: number) => {
  let url = `${service.url}${path}`;
  for (let page = 0; page < depth; page++) {
    const { link } = await timedGet(url, apiKey);
    const next = /<([^>]+)>; rel="next"/.exec(link ?? '')?.[1];
    if (!next) throw new Error(`no next link after page ${page + 1} of ${path}`);
    url = `${service.url}${next}`;
  }
  return url;
};

const folder = mkdtempSync(join(tmpdir(), 'petstore-scale-'));
try {
  const services = [];
  for (const size of SIZES) {
    const file = join(folder, `${size}.db`);
    process.stderr.write(`Seeding ${size.toLocaleString('en')} animals…\n`);
    const { apiKey } = await seedDatabase(file, size);
    const service = await startTarget('service', { database: { file }, apiKey, service: { rateLimitPerMinute: '0' } });
    services.push({ size, apiKey, service });
  }

  // Warm both services up on every case before anything is recorded.
  for (const testCase of CASES) {
    for (const { apiKey, service } of services) {
      await sequentialLatencies(await followLinks(service, apiKey, testCase.path, testCase.depth), apiKey, 300);
    }
  }

  const latencies = new Map<string, number[]>();
  const key = (caseName: string, size: number) => `${caseName} @ ${size}`;
  for (let round = 1; round <= settings.rounds; round++) {
    for (const testCase of CASES) {
      const urls = await Promise.all(
        services.map(({ apiKey, service }) => followLinks(service, apiKey, testCase.path, testCase.depth)),
      );
      // Request by request, 1k then 1M then 1k…: a noisy moment of the machine lands on both.
      for (let request = 0; request < settings.requests; request++) {
        for (const [index, { size, apiKey }] of services.entries()) {
          const [micros] = await sequentialLatencies(urls[index] ?? '', apiKey, 1);
          const recorded = latencies.get(key(testCase.name, size)) ?? [];
          recorded.push(micros ?? Number.NaN);
          latencies.set(key(testCase.name, size), recorded);
        }
      }
      process.stderr.write(`round ${round}: ${testCase.name} done\n`);
    }
  }
  await Promise.all(services.map(({ service }) => service.stop()));

  const [small = 0, large = 0] = SIZES;
  const rows = CASES.map(({ name }) => {
    const smallRun = latencies.get(key(name, small)) ?? [];
    const largeRun = latencies.get(key(name, large)) ?? [];
    const ratio = percentile(largeRun, 0.5) / percentile(smallRun, 0.5);
    return {
      case: name,
      '1k p50 µs': Math.round(percentile(smallRun, 0.5)),
      '1M p50 µs': Math.round(percentile(largeRun, 0.5)),
      '1k p99 µs': Math.round(percentile(smallRun, 0.99)),
      '1M p99 µs': Math.round(percentile(largeRun, 0.99)),
      '1M/1k (p50)': Number(ratio.toFixed(2)),
      met: ratio <= MAX_RATIO,
    };
  });
  console.table(rows);
  for (const row of rows) {
    console.log(`${row.met ? 'MET    ' : 'NOT MET'}  ${row.case}: 1M/1k p50 latency ${row['1M/1k (p50)']} (target ≤ ${MAX_RATIO})`);
  }
  mkdirSync(RESULTS, { recursive: true });
  const report = { date: new Date().toISOString(), node: process.version, sizes: SIZES, settings, rows };
  writeFileSync(join(RESULTS, 'scale.json'), `${JSON.stringify(report, null, 2)}\n`);
  console.log('Wrote bench/results/scale.json');
} finally {
  rmSync(folder, { recursive: true, force: true });
}
