// Garbage collection per request of every Node process it is loaded into: loaded before a
// target's own code, it counts the requests its HTTP servers take and V8's collections by kind,
// and on SIGTERM writes them, with the process's CPU per request, to REPORT_DIR/gc-<pid>.json and
// exits at once (a stop that drains is not measured). For the targets of postgres-against-bare.mjs:
//
//   REPORT_DIR=<folder> NODE_OPTIONS="--import $PWD/docs/decisions/measure/gc-per-request.mjs" \
//     ONLY="limit=100" ROUNDS=2 node docs/decisions/measure/postgres-against-bare.mjs
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';

const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};
const collections = {};
let requests = 0;

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, ...rest) {
  if (event === 'request') requests++;
  return emit.call(this, event, ...rest);
};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = KINDS[entry.detail?.kind] ?? 'other';
    collections[kind] ??= { count: 0, ms: 0 };
    collections[kind].count++;
    collections[kind].ms += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });

process.on('SIGTERM', () => {
  const { user, system } = process.cpuUsage();
  const gcMs = Object.values(collections).reduce((sum, { ms }) => sum + ms, 0);
  const report = {
    command: process.argv.slice(1).join(' '),
    requests,
    cpuMicrosPerRequest: Math.round((user + system) / requests),
    gcMicrosPerRequest: Math.round((gcMs * 1000) / requests),
    collections,
  };
  writeFileSync(join(process.env.REPORT_DIR ?? '.', `gc-${process.pid}.json`), `${JSON.stringify(report)}\n`);
  process.exit(0);
});
