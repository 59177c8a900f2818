import { type Logger, pino } from 'pino';
import { readConfig } from '../settings/config.js';
import { type RunningServer, startServer } from '../server.js';
import { type TestStorage, createTestStorage } from './test-storage.js';

/**
 * How the API is served: through the service's own front door, or as middleware in a bare
 * Express app (the vitest project `express` runs the REST contract that way).
 */
export const TEST_MOUNT: 'front-door' | 'express' = process.env.PETSTORE_TEST_MOUNT === 'express' ? 'express' : 'front-door';

export interface TestServer extends RunningServer {
  /** The key the server created on its fresh database. */
  apiKey: string;
  /** The variables that point another process (the keys CLI, a second instance) at its storage. */
  storageEnv: Record<string, string>;
  /** Stops this server and starts another on the same storage. */
  restart(): Promise<TestServer>;
  /** Stops the server and deletes its storage. */
  dispose(): Promise<void>;
}

const quiet = pino({ level: process.env.LOG_LEVEL ?? 'silent' });

/** A real server on a random loopback port, on storage of its own (see test-storage.ts). */
export const startTestServer = async (
  environment: NodeJS.ProcessEnv = {},
  reuse?: { storage: TestStorage; apiKey: string },
  logger: Logger = quiet,
): Promise<TestServer> => {
  const storage = reuse?.storage ?? (await createTestStorage());
  // Rate limits are off unless a test turns them on: most tests send far more than 600 requests,
  // and far more refused keys than 60, a minute. So is load shedding: this server shares its event
  // loop with the test, whose own work (compiling the document's schemas) would read as overload.
  // A stop closes idle connections at once: no proxy pools connections to this server, and the
  // tests' own keep-alive clients would otherwise hold every stop for seconds.
  const config = readConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '0',
    AUTH_FAILURES_PER_MINUTE: '0',
    OVERLOAD_DELAY_MS: '0',
    SHUTDOWN_IDLE_MS: '0',
    ...storage.env,
    ...environment,
  });
  const server = await startServer(config, logger, { mount: TEST_MOUNT });
  const apiKey = reuse?.apiKey ?? server.firstApiKey;
  if (apiKey === undefined) throw new Error('a fresh database should have been given a key');
  return {
    ...server,
    apiKey,
    storageEnv: storage.env,
    restart: async () => {
      await server.close();
      return startTestServer(environment, { storage, apiKey }, logger);
    },
    dispose: async () => {
      await server.close();
      await storage.dispose();
    },
  };
};
