// The server's CPU time per request, for several variants of one server side by side.
//
//   node docs/decisions/measure/cpu-per-request.mjs <server.mjs> <variant> <variant>...
//
// Each variant runs in a process of its own (`node <server.mjs> <variant>`), which listens on
// 127.0.0.1 and tells this one, over IPC, its port and the request to send. Rounds alternate the
// variants, in a rotated order, so a noisy neighbour weighs on each alike; each round drives one
// variant with keep-alive connections for a few seconds and divides the CPU its process used
// (process.cpuUsage, user + system) by the requests it answered. Prints each round, then each
// variant's median and its per-round ratios to the first variant.
//
// ROUNDS (default 7), SECONDS (3) and CONNECTIONS (16) tune it.
import { fork } from 'node:child_process';
import { cpuOf, load, serverAndVariants } from './keep-alive-load.mjs';

const { serverModule, variants } = serverAndVariants('cpu-per-request.mjs');
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const SECONDS = Number(process.env.SECONDS ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);

const start = (variant) =>
  new Promise((resolve, reject) => {
    const child = fork(serverModule, [variant], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('error', reject);
    child.once('exit', (code) => {
      reject(new Error(`${variant} exited with ${String(code)}`));
    });
    child.once('message', (ready) => {
      resolve({ variant, child, ...ready });
    });
  });

/** Sends the server's request over and over on each connection until the time is up. */
const drive = async (server) => {
  const until = Date.now() + SECONDS * 1000;
  let answered = 0;
  await load(server, CONNECTIONS, () => Date.now() < until, () => {
    answered += 1;
  });
  return answered;
};

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const servers = await Promise.all(variants.map(start));
const perRequest = new Map(variants.map((variant) => [variant, []]));
// A first, unrecorded round each, so no variant's round pays for the JIT's warm-up.
for (const server of servers) await drive(server);
for (let round = 0; round < ROUNDS; round++) {
  const order = servers.map((_, index) => servers[(index + round) % servers.length]);
  const line = [];
  for (const server of order) {
    const before = await cpuOf(server);
    const answered = await drive(server);
    const micros = ((await cpuOf(server)) - before) / answered;
    perRequest.get(server.variant).push(micros);
    line.push(`${server.variant} ${micros.toFixed(1)} µs (${String(answered)} req)`);
  }
  console.log(`round ${String(round + 1)}: ${line.join(', ')}`);
}
const [first] = variants;
for (const variant of variants) {
  const ratios = perRequest.get(variant).map((micros, round) => micros / perRequest.get(first)[round]);
  console.log(
    `${variant}: median ${median(perRequest.get(variant)).toFixed(1)} µs CPU per request; ÷ ${first} per round: ${ratios.map((ratio) => ratio.toFixed(2)).join(' ')} (median ${median(ratios).toFixed(2)})`,
  );
}
for (const server of servers) {
  server.child.removeAllListeners('exit');
  server.child.kill();
}
