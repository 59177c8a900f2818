import type { Logger } from 'pino';
import { test as base } from 'vitest';
import { type TestServer, startTestServer } from './test-server.js';
import { createTestStorage } from './test-storage.js';

/**
 * What the fixtures hand out: disposing twice waits on the first (a shutdown test disposes the
 * server itself), and after restart() it is the server running now that is disposed, once.
 */
const managed = (first: TestServer): TestServer => {
  let running = first;
  let disposing: Promise<void> | undefined;
  const dispose = () => (disposing ??= running.dispose());
  const wrap = (server: TestServer): TestServer => ({
    ...server,
    restart: async () => wrap((running = await server.restart())),
    dispose,
  });
  return wrap(first);
};

/**
 * vitest's `test`, with a running service to test against.
 *
 * - `server`: one per test file, started when a test or a `beforeAll` first asks for it and
 *   disposed after the file's last test, so a file's tests share one start-up.
 * - `serverEnv`, `serverLogger`: what that server starts with. A file that needs rate limits,
 *   metrics or CORS on overrides them at its top level: `test.override({ serverEnv: { … } })`.
 *   vitest 4.1 refuses a file-scoped override inside `describe`, so a group of tests that needs
 *   other settings starts its servers with `startServer`.
 * - `startServer(env?, logger?)`: more servers, each on fresh storage, all disposed when the test
 *   ends, whether it passed or not: for tests that need a server of their own.
 * - `storage`: fresh storage on the project's engine, deleted after the file's last test, for
 *   tests that run the service as a process of their own (`storage.env` points it there).
 *
 * Suite hooks reach the file's server through this API (`test.beforeAll(({ server }) => …)`),
 * and tables through `test.for`, since `test.each` hands its callback no fixtures.
 */
export const test = base
  .extend('serverEnv', { scope: 'file' }, (): NodeJS.ProcessEnv => ({}))
  // undefined: startTestServer's own quiet logger.
  .extend('serverLogger', { scope: 'file' }, (): Logger | undefined => undefined)
  .extend('server', { scope: 'file' }, async ({ serverEnv, serverLogger }, { onCleanup }) => {
    const server = managed(await startTestServer(serverEnv, undefined, serverLogger));
    onCleanup(() => server.dispose());
    return server;
  })
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('startServer', ({}, { onCleanup }) => {
    const started: TestServer[] = [];
    onCleanup(async () => {
      await Promise.all(started.map((server) => server.dispose()));
    });
    return async (env: NodeJS.ProcessEnv = {}, logger?: Logger): Promise<TestServer> => {
      const server = managed(await startTestServer(env, undefined, logger));
      started.push(server);
      return server;
    };
  })
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('storage', { scope: 'file' }, async ({}, { onCleanup }) => {
    const storage = await createTestStorage();
    onCleanup(() => storage.dispose());
    return storage;
  });

export const it = test;
