import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Logger, pino } from 'pino';
import { readConfig } from '../config.js';
import { type RunningServer, startServer } from '../server.js';

export interface TestServer extends RunningServer {
  /** The key the server created on its fresh database. */
  apiKey: string;
  /** The SQLite file behind it. */
  databaseFile: string;
  /** Stops this server and starts another on the same file. */
  restart(): Promise<TestServer>;
  /** Stops the server and deletes its database. */
  dispose(): Promise<void>;
}

const quiet = pino({ level: process.env.LOG_LEVEL ?? 'silent' });

/** A real server on a random loopback port, on its own SQLite file in a temporary folder. */
export const startTestServer = async (
  environment: NodeJS.ProcessEnv = {},
  reuse?: { folder: string; apiKey: string },
  logger: Logger = quiet,
): Promise<TestServer> => {
  const folder = reuse?.folder ?? mkdtempSync(join(tmpdir(), 'petstore-test-'));
  const databaseFile = join(folder, 'petstore.db');
  // Rate limiting is off unless a test turns it on: most tests send far more than 600 a minute.
  const config = readConfig({ PORT: '0', HOST: '127.0.0.1', PETSTORE_DB: databaseFile, RATE_LIMIT_PER_MINUTE: '0', ...environment });
  const server = await startServer(config, logger);
  const apiKey = reuse?.apiKey ?? server.firstApiKey;
  if (apiKey === undefined) throw new Error('a fresh database should have been given a key');
  return {
    ...server,
    apiKey,
    databaseFile,
    restart: async () => {
      await server.close();
      return startTestServer(environment, { folder, apiKey }, logger);
    },
    dispose: async () => {
      await server.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
};
