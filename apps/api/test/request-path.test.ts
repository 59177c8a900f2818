import { request } from 'node:http';
import { pino } from 'pino';
import { expect } from 'vitest';
import { TEST_ENGINE, it } from '../src/testing/index.js';
import { entriesByFile, startStatementTrail } from './support/statement-trail.js';

/**
 * A GET /v1/pets/{petId}, read forward: each file it runs is entered at most twice (called, and
 * given back the hand of the one file it calls), never a hub that the request keeps coming back
 * to. On PostgreSQL the store is two files: its statements, and the pipelined connections they go on.
 */
const MAX_ENTRIES = 2;
const MAX_FILES_ON_THE_PATH = TEST_ENGINE === 'postgres' ? 17 : 16;

/** Source files of the service, not the tests' own helpers. */
const SERVICE_SOURCE = /\/(apps\/api|packages\/core)\/src\/(?!testing\/).*\.ts/;

// The service as users run it: the request log at info (into a sink), the rate limit on, the
// process's own event loop shared with nothing but this test. A breakpoint on every statement
// holds a request up for seconds as no load does, so the request counted is made the common one
// by settings: the key held for the whole test, the quota counted in the process (with Redis, what
// an instance knows of a shared count goes stale in that time, and every request would ask Redis,
// which one far from its limit does not), no load shedding, and PostgreSQL's statement deadline
// (an idle timer on each database connection) longer than the breakpoints make a request last.
it.override({
  serverEnv: {
    RATE_LIMIT_PER_MINUTE: '600',
    OVERLOAD_DELAY_MS: '0',
    API_KEY_CACHE_MS: '600000',
    DATABASE_STATEMENT_TIMEOUT_MS: '600000',
    REDIS_URL: '',
  },
  serverLogger: pino({ level: 'info' }, { write: () => true }),
});

const get = (url: string, apiKey: string) =>
  new Promise<number>((resolve, reject) => {
    request(url, { headers: { Authorization: `Bearer ${apiKey}` } }, (res) => {
      res.resume();
      res.on('end', () => {
        resolve(res.statusCode ?? 0);
      });
    })
      .on('error', reject)
      .end();
  });

/** `apps/api/src/rest/rest.ts` for a script's URL. */
const sourceOf = (url: string) => /(apps\/api|packages\/core)\/src\/[^?]*/.exec(url)?.[0] ?? url;

it(`runs a GET /v1/pets/{petId} through at most ${MAX_FILES_ON_THE_PATH} files of apps/api and core, each entered at most ${MAX_ENTRIES} times`, async ({ server }) => {
  const created = await fetch(`${server.url}/v1/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
  });
  expect(created.status).toBe(201);
  // The first request of a key reads its row; the path counted is every request after it.
  expect(await get(`${server.url}/v1/pets/1`, server.apiKey)).toBe(200);
  const trail = await startStatementTrail(SERVICE_SOURCE);
  const trails: string[][] = [];
  try {
    // A timer of the service (the log's flush, say) may fire during one request: the path is
    // what every one of three requests ran, each file entered as few times as in any of them.
    for (let run = 0; run < 3; run++) {
      let status = 0;
      trails.push((await trail.follow(async () => (status = await get(`${server.url}/v1/pets/1`, server.apiKey)))).map(sourceOf));
      expect(status).toBe(200);
    }
  } finally {
    await trail.close();
  }
  const counts = trails.map(entriesByFile);
  const files = [...(counts[0]?.keys() ?? [])].filter((file) => counts.every((entries) => entries.has(file)));
  const entries = files.map((file) => [file, Math.min(...counts.map((each) => each.get(file) ?? 0))] as const);
  // The trail itself is the finding when a bound does not hold.
  const shown = `${entries.map(([file, times]) => `${times} ${file}`).join('\n')}\n\n${trails[0]?.join(' → ') ?? ''}`;
  expect(files.length, shown).toBeLessThanOrEqual(MAX_FILES_ON_THE_PATH);
  expect(Math.max(...entries.map(([, times]) => times)), shown).toBeLessThanOrEqual(MAX_ENTRIES);
});
