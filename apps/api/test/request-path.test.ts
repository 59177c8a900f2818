import { request } from 'node:http';
import { pino } from 'pino';
import { expect } from 'vitest';
import { TEST_ENGINE, it } from '../src/testing/index.js';
import { startCallCount } from './support/call-count.js';

/**
 * The work a request does, bounded by the calls of the service's own functions (apps/api and core)
 * it makes: a count that a change of what a request runs moves, and moving a function to another
 * file does not. Each bound is what a request makes now with a margin of about a tenth; on
 * PostgreSQL the store's statements and their pipelined connections add some.
 */
const MAX_GET_CALLS = TEST_ENGINE === 'postgres' ? 63 : 62;
const MAX_BATCH_CALLS = TEST_ENGINE === 'postgres' ? 148 : 130;

/** Source files of the service, not the tests' own helpers. */
const SERVICE_SOURCE = /\/(apps\/api|packages\/core)\/src\/(?!testing\/).*\.ts/;

// The service as users run it: the request log at info (into a sink), the rate limit on, the
// process's own event loop shared with nothing but this test. The request counted is the common
// one: the key held for the whole test, the quota counted in the process (an instance with Redis
// asks it only as its shared count goes stale), no load shedding.
it.override({
  serverEnv: {
    RATE_LIMIT_PER_MINUTE: '600',
    OVERLOAD_DELAY_MS: '0',
    API_KEY_CACHE_MS: '600000',
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

/** `apps/api/src/rest/rest.ts:name` for a function of a script's URL. */
const sourceOf = (name: string) => /(apps\/api|packages\/core)\/src\/.*/.exec(name)?.[0] ?? name;

interface Work {
  /** The fewest calls of the service's functions any run made. */
  calls: number;
  /** The calls by function, as the failure message shows them. */
  shown: string;
}

/**
 * The calls a GET of `url` makes that the service answers with a 200 and a body with the animal
 * (no call of a batch failed), after one like it (the first request of a key reads its row; the
 * work counted is every request after it). A timer of the service (the log's flush, say) may fire
 * during one request: the count is the fewest of three requests.
 */
const workOf = async (url: string, headers: Record<string, string>): Promise<Work> => {
  const answered = (reply: { status: number; body: string }) => {
    expect(reply.status).toBe(200);
    expect(reply.body).toContain('"Rex"');
    expect(reply.body).not.toContain('"error"');
  };
  answered(await get(url, headers));
  const counter = await startCallCount(SERVICE_SOURCE);
  const runs: { calls: number; byFunction: Map<string, number> }[] = [];
  try {
    for (let run = 0; run < 3; run++) {
      let reply = { status: 0, body: '' };
      runs.push(await counter.count(async () => (reply = await get(url, headers))));
      answered(reply);
    }
  } finally {
    await counter.close();
  }
  const fewest = runs.reduce((least, run) => (run.calls < least.calls ? run : least));
  const shown = [...fewest.byFunction].map(([name, times]) => `${times} ${sourceOf(name)}`).join('\n');
  return { calls: fewest.calls, shown: `${shown}\n${fewest.calls} calls` };
};

const createPet = async (url: string, apiKey: string) => {
  const created = await fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
  });
  expect(created.status).toBe(201);
};

const report = (what: string, { calls, shown }: Work) => {
  if (process.env.SHOW_WORK) console.info(`${what}: ${calls} calls\n${shown}`);
};

it(`answers a GET /v1/pets/{petId} in at most ${MAX_GET_CALLS} calls of the service's functions`, async ({ server }) => {
  await createPet(server.url, server.apiKey);
  const work = await workOf(`${server.url}/v1/pets/1`, { Authorization: `Bearer ${server.apiKey}` });
  report('GET', work);
  expect(work.calls, work.shown).toBeLessThanOrEqual(MAX_GET_CALLS);
});

it(`answers a streamed tRPC batch of two getPet calls in at most ${MAX_BATCH_CALLS} calls`, async ({ server }) => {
  await createPet(server.url, server.apiKey);
  const input = encodeURIComponent(JSON.stringify({ 0: { petId: 1 }, 1: { petId: 1 } }));
  const work = await workOf(`${server.url}/trpc/getPet,getPet?batch=1&input=${input}`, {
    Authorization: `Bearer ${server.apiKey}`,
    'trpc-accept': 'application/jsonl',
  });
  report('streamed batch', work);
  expect(work.calls, work.shown).toBeLessThanOrEqual(MAX_BATCH_CALLS);
});
