// Where the objects that outlive a young-generation collection are allocated: the ones V8 moves to
// the old generation, whose growth makes it run full collections. Loaded into a process
// (NODE_OPTIONS="--import <this file>"), it samples allocations from the start, leaving out what a
// scavenge collects, and on SIGTERM writes REPORT_DIR/promoted-<pid>.heapprofile and exits at once.
// Run with a profile's path, it prints the allocation sites with the largest share:
//
//   REPORT_DIR=<folder> NODE_OPTIONS="--import $PWD/docs/decisions/measure/promoted-allocations.mjs" \
//     ONLY="limit=100" ROUNDS=1 node docs/decisions/measure/postgres-against-bare.mjs
//   node docs/decisions/measure/promoted-allocations.mjs <folder>/promoted-<pid>.heapprofile
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const printSites = (file) => {
  const { head } = JSON.parse(readFileSync(file, 'utf8'));
  const bySite = new Map();
  let total = 0;
  const visit = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const site = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber}`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
    node.children.forEach(visit);
  };
  visit(head);
  console.log(`${(total / 2 ** 20).toFixed(0)} MiB sampled`);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${site}`);
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  printSites(process.argv[2]);
} else {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.enable');
  session.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
  process.on('SIGTERM', () => {
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (!error) writeFileSync(join(process.env.REPORT_DIR ?? '.', `promoted-${process.pid}.heapprofile`), JSON.stringify(result.profile));
      process.exit(0);
    });
  });
}
