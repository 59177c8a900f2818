// The server's CPU time per request for several variants loaded at the same time, each pinned to
// the machine's last core, the load from this process on the others.
//
//   node docs/decisions/measure/cpu-side-by-side.mjs <server.mjs> <variant> <variant>...
//
// The servers speak cpu-per-request.mjs's protocol (a port and a request over IPC, process.cpuUsage
// on any message). Alternating rounds (cpu-per-request.mjs) leave each round's ratio to whatever
// the machine did in those seconds; here the variants share every second, so a slow moment slows
// them all and the per-slice ratios stay close. Sharing one core, each answers slower than alone,
// and one that touches more memory is slowed more by the other's: read the ratios, not the figures.
// Prints each slice, then each variant's median and its ratio to the first variant per slice.
//
// SLICES (default 10), SECONDS (3) and CONNECTIONS (8 per variant) tune it. Needs `taskset`.
import { execFileSync, fork } from 'node:child_process';
import { cpuOf, load, serverAndVariants } from './keep-alive-load.mjs';
import { availableParallelism } from 'node:os';

const { serverModule, variants } = serverAndVariants('cpu-side-by-side.mjs');
const SLICES = Number(process.env.SLICES ?? 10);
const SECONDS = Number(process.env.SECONDS ?? 3);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 8);
const serverCore = String(availableParallelism() - 1);
const loadCores = availableParallelism() > 1 ? `0-${availableParallelism() - 2}` : '0';
execFileSync('taskset', ['-a', '-p', '-c', loadCores, String(process.pid)], { stdio: 'ignore' });

const start = (variant) =>
  new Promise((resolve, reject) => {
    // The servers' own output (an access log, say) is read and dropped.
    const child = fork(serverModule, [variant], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    child.stdout.resume();
    child.once('error', reject);
    child.once('exit', (code) => {
      reject(new Error(`${variant} exited with ${String(code)}`));
    });
    child.once('message', (ready) => {
      execFileSync('taskset', ['-a', '-p', '-c', serverCore, String(child.pid)], { stdio: 'ignore' });
      resolve({ variant, child, answered: 0, perRequest: [], ...ready });
    });
  });

let running = true;
/** Sends the server's request over and over on each connection, counting the answers. */
const drive = (server) =>
  load(server, CONNECTIONS, () => running, () => {
    server.answered += 1;
  });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const pause = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

const servers = await Promise.all(variants.map(start));
const driving = servers.map(drive);
// A first slice, not recorded, so that no variant's figures include the JIT's warm-up.
await pause(SECONDS);
for (let slice = 0; slice < SLICES; slice++) {
  const before = await Promise.all(servers.map(async (server) => ({ cpu: await cpuOf(server), answered: server.answered })));
  await pause(SECONDS);
  const line = [];
  for (const [index, server] of servers.entries()) {
    const micros = ((await cpuOf(server)) - before[index].cpu) / Math.max(1, server.answered - before[index].answered);
    server.perRequest.push(micros);
    line.push(`${server.variant} ${micros.toFixed(1)} µs`);
  }
  console.log(`slice ${String(slice + 1)}: ${line.join(', ')}`);
}
running = false;
await Promise.allSettled(driving);
const [first] = servers;
for (const server of servers) {
  const ratios = server.perRequest.map((micros, slice) => micros / first.perRequest[slice]);
  console.log(
    `${server.variant}: median ${median(server.perRequest).toFixed(1)} µs CPU per request; ÷ ${first.variant} per slice: median ${median(ratios).toFixed(3)}, ${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)}`,
  );
}
for (const server of servers) {
  server.child.removeAllListeners('exit');
  server.child.kill();
}
