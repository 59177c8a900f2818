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

/**
 * The one lifecycle (front-door.ts's `throughAdmission`) hands the request to the transport's wire
 * to read, then to the key check, as Fastify's lifecycle calls each hook in turn: entered once more
 * than a stage. Reaching the key check as a promise reaction instead cost 4-11% of the CPU of the
 * cheapest calls (docs/decisions/2026-11-28-one-lifecycle-for-both-transports.md).
 */
const LIFECYCLE = 'apps/api/src/front-door/front-door.ts';
const MAX_LIFECYCLE_ENTRIES = 3;

/** The most times `file` may be entered by a GET. */
const entriesAllowed = (file: string) => (file.endsWith(LIFECYCLE) ? MAX_LIFECYCLE_ENTRIES : MAX_ENTRIES);
const MAX_FILES_ON_THE_PATH = TEST_ENGINE === 'postgres' ? 17 : 16;

/**
 * A streamed tRPC batch of two calls passes through the same lifecycle (front-door.ts's
 * `throughAdmission`) and the same files; its own steps run once per call, so its files are
 * entered more often than a GET's. Before the one lifecycle (each transport chaining admission
 * itself) it entered trpc/trpc.ts 14 times (15 on PostgreSQL) and its files 54 times (67).
 */
const MAX_BATCH_ENTRIES = 10;
const MAX_BATCH_ENTRIES_IN_ALL = TEST_ENGINE === 'postgres' ? 63 : 50;

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

/** The status and body of a GET of `url`. */
const get = (url: string, headers: Record<string, string>) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    request(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
    })
      .on('error', reject)
      .end();
  });

/** `apps/api/src/rest/rest.ts` for a script's URL. */
const sourceOf = (url: string) => /(apps\/api|packages\/core)\/src\/[^?]*/.exec(url)?.[0] ?? url;

interface Walk {
  /** Each file every run entered, with the fewest times any run entered it. */
  entries: (readonly [string, number])[];
  /** The fewest calls of the service's functions any run made. */
  calls: number;
  /** The walk as the failure message shows it. */
  shown: string;
}

/**
 * The walk of a GET of `url` the service answers with a 200 and a body with the animal (no call of
 * a batch failed), after one like it (the first request
 * of a key reads its row; the path counted is every request after it). A timer of the service
 * (the log's flush, say) may fire during one request: the walk is what every one of three
 * requests ran, each file entered as few times as in any of them.
 */
const walkOf = async (url: string, headers: Record<string, string>): Promise<Walk> => {
  const answered = (reply: { status: number; body: string }) => {
    expect(reply.status).toBe(200);
    expect(reply.body).toContain('"Rex"');
    expect(reply.body).not.toContain('"error"');
  };
  answered(await get(url, headers));
  const trail = await startStatementTrail(SERVICE_SOURCE);
  const runs: { trail: string[]; calls: number }[] = [];
  try {
    for (let run = 0; run < 3; run++) {
      let reply = { status: 0, body: '' };
      const followed = await trail.follow(async () => (reply = await get(url, headers)));
      runs.push({ trail: followed.trail.map(sourceOf), calls: followed.calls });
      answered(reply);
    }
  } finally {
    await trail.close();
  }
  const counts = runs.map((run) => entriesByFile(run.trail));
  const files = [...(counts[0]?.keys() ?? [])].filter((file) => counts.every((each) => each.has(file)));
  const entries = files.map((file) => [file, Math.min(...counts.map((each) => each.get(file) ?? 0))] as const);
  const calls = Math.min(...runs.map((run) => run.calls));
  // The trail itself is the finding when a bound does not hold.
  const shown = `${entries.map(([file, times]) => `${times} ${file}`).join('\n')}\n${calls} calls\n\n${runs[0]?.trail.join(' → ') ?? ''}`;
  return { entries, calls, shown };
};

const createPet = async (url: string, apiKey: string) => {
  const created = await fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
  });
  expect(created.status).toBe(201);
};

const report = (what: string, { entries, calls, shown }: Walk) => {
  if (process.env.SHOW_WALK) console.info(`${what}: ${entries.length} files, ${entries.reduce((sum, [, times]) => sum + times, 0)} entries, ${calls} calls\n${shown}`);
};

it(`runs a GET /v1/pets/{petId} through at most ${MAX_FILES_ON_THE_PATH} files of apps/api and core, each entered at most ${MAX_ENTRIES} times (the lifecycle ${MAX_LIFECYCLE_ENTRIES})`, async ({ server }) => {
  await createPet(server.url, server.apiKey);
  const walk = await walkOf(`${server.url}/v1/pets/1`, { Authorization: `Bearer ${server.apiKey}` });
  report('GET', walk);
  expect(walk.entries.length, walk.shown).toBeLessThanOrEqual(MAX_FILES_ON_THE_PATH);
  for (const [file, times] of walk.entries) expect(times, `${file}\n${walk.shown}`).toBeLessThanOrEqual(entriesAllowed(file));
});

it(`runs a streamed tRPC batch of two getPet calls through the same ${MAX_FILES_ON_THE_PATH} files, each entered at most ${MAX_BATCH_ENTRIES} times`, async ({ server }) => {
  await createPet(server.url, server.apiKey);
  const input = encodeURIComponent(JSON.stringify({ 0: { petId: 1 }, 1: { petId: 1 } }));
  const walk = await walkOf(`${server.url}/trpc/getPet,getPet?batch=1&input=${input}`, {
    Authorization: `Bearer ${server.apiKey}`,
    'trpc-accept': 'application/jsonl',
  });
  report('streamed batch', walk);
  expect(walk.entries.length, walk.shown).toBeLessThanOrEqual(MAX_FILES_ON_THE_PATH);
  expect(Math.max(...walk.entries.map(([, times]) => times)), walk.shown).toBeLessThanOrEqual(MAX_BATCH_ENTRIES);
  expect(walk.entries.reduce((sum, [, times]) => sum + times, 0), walk.shown).toBeLessThanOrEqual(MAX_BATCH_ENTRIES_IN_ALL);
});
