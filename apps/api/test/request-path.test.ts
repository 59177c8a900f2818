import { Session } from 'node:inspector/promises';
import { request } from 'node:http';
import { pino } from 'pino';
import { expect } from 'vitest';
import { TEST_ENGINE, it } from '../src/testing/index.js';

/**
 * The most files of apps/api and core a GET /v1/pets/{petId} may run code in (DEVELOPERS.md lists
 * them). On PostgreSQL the store is two: its statements, and the pipelined connections they go on.
 */
const MAX_FILES_ON_THE_PATH = TEST_ENGINE === 'postgres' ? 13 : 12;

/** Source files of the service, not the tests' own helpers. */
const SERVICE_SOURCE = /\/(apps\/api|packages\/core)\/src\/(?!testing\/).*\.ts/;

// The service as users run it: the request log at info (into a sink), the rate limit and load
// shedding on, the process's own event loop shared with nothing but this test.
it.override({
  serverEnv: { RATE_LIMIT_PER_MINUTE: '600', OVERLOAD_DELAY_MS: '100' },
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

/**
 * Which files of the service ran code while `work` ran: V8's precise coverage, counted per
 * function, in this process, where the test's server runs.
 */
const filesRunBy = async (work: () => Promise<unknown>): Promise<string[]> => {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    // Taking coverage resets the counts: what follows counts only `work`.
    await session.post('Profiler.takePreciseCoverage');
    await work();
    const { result } = await session.post('Profiler.takePreciseCoverage');
    return result
      .filter((script) => SERVICE_SOURCE.test(script.url) && script.functions.some((fn) => (fn.ranges[0]?.count ?? 0) > 0))
      .map((script) => /(apps\/api|packages\/core)\/src\/[^?]*/.exec(script.url)?.[0] ?? script.url)
      .sort();
  } finally {
    await session.post('Profiler.stopPreciseCoverage');
    session.disconnect();
  }
};

it(`runs a GET /v1/pets/{petId} through at most ${MAX_FILES_ON_THE_PATH} files of apps/api and core`, async ({ server }) => {
  const created = await fetch(`${server.url}/v1/pets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
  });
  expect(created.status).toBe(201);
  // The first request of a key reads its row; the path counted is every request after it.
  expect(await get(`${server.url}/v1/pets/1`, server.apiKey)).toBe(200);
  // A timer of the service (the overload guard's sampler, say) may fire during one request on a
  // busy machine: the path is what every one of three requests ran.
  const runs: string[][] = [];
  let status = 0;
  for (let run = 0; run < 3; run++) {
    runs.push(
      await filesRunBy(async () => {
        status = await get(`${server.url}/v1/pets/1`, server.apiKey);
      }),
    );
  }
  const files = runs.reduce((common, files) => common.filter((file) => files.includes(file)));
  expect(status).toBe(200);
  // The list itself is the finding when it is too long.
  expect(files.length, files.join('\n')).toBeLessThanOrEqual(MAX_FILES_ON_THE_PATH);
});
