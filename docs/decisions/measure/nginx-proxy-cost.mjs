// What an nginx configuration costs on the hot path, against another: the bench's REST scenarios
// through nginx at 32 connections, both configurations loaded at the same time, each in front of
// two instances of its own (built, started as `pnpm start` starts them) on one PostgreSQL database
// of 10,000 animals and Redis, as docker-compose.yml runs them. Loaded together, the two share
// every second of a busy machine, so a slow moment slows both; the rounds alternate which pair of
// instances each configuration fronts, so neither keeps the better pair. nginx loads each file as
// the tests do (apps/api/test/support/nginx.ts: only the addresses changed). Prints each slice,
// then per scenario and configuration the median requests/s, the service's CPU µs per request
// (its two instances) and nginx's, and the median per-slice ratio to the first configuration.
//
// Run from apps/api, after `npx pnpm build`, with Debian's nginx, PostgreSQL and Redis as the tests
// have them; each argument is a label and a configuration file:
//   git show d25f3e1:deploy/nginx.conf > <folder>/before.conf
//   cd apps/api && node --import tsx --conditions=petstore-source ../../docs/decisions/measure/nginx-proxy-cost.mjs before=<folder>/before.conf now=../../deploy/nginx.conf
//
// ROUNDS (default 8), SECONDS (5) and CONNECTIONS (32 per configuration) tune it.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

const fromBench = (name) => import(new URL(`../../../bench/dist/${name}.js`, import.meta.url).href);
const { scenarios } = await fromBench('scenarios');
const { load, median } = await fromBench('load');
const { seedPostgres } = await fromBench('seed-postgres');
const { startTarget } = await fromBench('target-process');
const { benchRedisUrl } = await fromBench('bench-settings');
const { startNginx } = await import(new URL('../../../apps/api/test/support/nginx.ts', import.meta.url).href);
const { descendantsOf } = await import(new URL('../../../apps/api/src/testing/process-tree.ts', import.meta.url).href);

const configurations = process.argv.slice(2).map((argument) => {
  const [label, file] = argument.split('=');
  if (!label || !file) throw new Error('usage: nginx-proxy-cost.mjs <label>=<nginx.conf> <label>=<nginx.conf>');
  return { label, text: readFileSync(file, 'utf8') };
});
if (configurations.length !== 2) throw new Error('two configurations, loaded side by side');
const ROUNDS = Number(process.env.ROUNDS ?? 8);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const SEEDED = 10_000;

// Linux reports utime and stime in clock ticks of 1/100 s.
const cpuSecondsOf = (pid) => {
  try {
    const fields = readFileSync(`/proc/${String(pid)}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0; // it exited while we looked
  }
};
/** nginx's CPU: its workers', which do the proxying. */
const nginxCpu = (nginx) => descendantsOf(nginx.pid).reduce((sum, { pid }) => sum + cpuSecondsOf(pid), 0);

const database = await seedPostgres(SEEDED);
// Shedding off: four instances share two cores here, and their event loops lag past its threshold
// while the JIT warms up; what is measured is the proxy, not the shedding.
const service = { redisUrl: benchRedisUrl(), redisKeyPrefix: `proxy-cost:${randomBytes(6).toString('hex')}:`, rateLimitPerMinute: '999999999', overloadDelayMs: '0' };
const instances = [];
const proxies = [];
try {
  for (let index = 0; index < 4; index++) instances.push(await startTarget('service', { database: { url: database.url }, apiKey: database.apiKey, service }));
  const pairs = [instances.slice(0, 2), instances.slice(2)];
  // Each configuration in front of each pair: a round loads one configuration on each pair.
  for (const configuration of configurations) {
    for (const [index, pair] of pairs.entries()) {
      const nginx = await startNginx(pair.map((instance) => instance.url.replace('http://', '')), configuration.text);
      proxies.push({ ...configuration, pair: index, nginx, serviceCpu: () => pair.reduce((sum, instance) => sum + instance.cpuSeconds(), 0) });
    }
  }
  const [first, second] = configurations.map(({ label }) => label);
  const proxy = (label, pair) => proxies.find((candidate) => candidate.label === label && candidate.pair === pair);

  const through = async ({ nginx, serviceCpu }, request) => {
    const nginxBefore = nginxCpu(nginx);
    const result = await load({ url: nginx.url, cpuSeconds: serviceCpu, apiKey: database.apiKey, request, connections: CONNECTIONS, seconds: SECONDS });
    const requests = result.requestsPerSecond * SECONDS;
    return { ...result, nginxMicrosPerRequest: ((nginxCpu(nginx) - nginxBefore) * 1e6) / Math.max(1, requests) };
  };

  const rest = scenarios(SEEDED).map((scenario) => ({ name: scenario.name, request: scenario.rest }));
  const samples = new Map();
  // Round 0 warms every process and is not recorded.
  for (let round = 0; round <= ROUNDS; round++) {
    const loaded = round % 2 === 0 ? [proxy(first, 0), proxy(second, 1)] : [proxy(second, 0), proxy(first, 1)];
    for (const { name, request } of rest) {
      const results = await Promise.all(loaded.map((each) => through(each, request)));
      for (const [index, result] of results.entries()) {
        if (result.failures > 0) throw new Error(`${loaded[index].label}, ${name}: ${result.failureKinds}`);
        if (round > 0) samples.set(`${name}|${loaded[index].label}`, [...(samples.get(`${name}|${loaded[index].label}`) ?? []), result]);
      }
      const line = results.map((result, index) => `${loaded[index].label} (pair ${String(loaded[index].pair)}) ${result.requestsPerSecond.toFixed(0)} req/s ${result.cpuMicrosPerRequest.toFixed(1)} µs (nginx ${result.nginxMicrosPerRequest.toFixed(1)} µs)`);
      console.log(`${round === 0 ? 'warm-up' : `round ${String(round)}`}, ${name}: ${line.join('; ')}`);
    }
  }
  for (const { name } of rest) {
    for (const label of [first, second]) {
      const mine = samples.get(`${name}|${label}`);
      const theirs = samples.get(`${name}|${first}`);
      const ratio = (field) => median(mine.map((sample, round) => sample[field] / theirs[round][field])).toFixed(3);
      const spread = (field) => {
        const ratios = mine.map((sample, round) => sample[field] / theirs[round][field]);
        return `${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)}`;
      };
      console.log(
        `${name}, ${label}: ${median(mine.map((sample) => sample.requestsPerSecond)).toFixed(0)} req/s, ` +
          `service ${median(mine.map((sample) => sample.cpuMicrosPerRequest)).toFixed(1)} µs CPU per request, nginx ${median(mine.map((sample) => sample.nginxMicrosPerRequest)).toFixed(1)} µs` +
          (label === first ? '' : `; ÷ ${first} per slice: req/s ${ratio('requestsPerSecond')} (${spread('requestsPerSecond')}), service CPU ${ratio('cpuMicrosPerRequest')} (${spread('cpuMicrosPerRequest')})`),
      );
    }
  }
} finally {
  for (const { nginx } of proxies) await nginx.dispose();
  for (const instance of instances) await instance.stop();
  await database.drop();
}
