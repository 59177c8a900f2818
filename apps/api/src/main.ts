import { writeSync } from 'node:fs';
import { KEYS_COMMAND } from './cli/keys-command.js';
import { ConfigError, readConfig } from './settings/config.js';
import { createLogger } from './settings/logger.js';
import { startServer } from './server.js';

const firstKeyBanner = (key: string, url: string) => {
  const rule = '-'.repeat(72);
  return [
    rule,
    'Petstore created its first API key. It is shown only this once; keep it:',
    '',
    `  ${key}`,
    '',
    `Try it: curl -H "Authorization: Bearer ${key}" ${url}/v1/pets`,
    `More keys: ${KEYS_COMMAND} create <name>`,
    rule,
    '',
  ].join('\n');
};

const main = async () => {
  const config = readConfig();
  const logger = createLogger(config.logLevel);
  const server = await startServer(config, logger);
  // Written synchronously so it is on the terminal before the log line that follows it.
  if (server.firstApiKey) writeSync(1, firstKeyBanner(server.firstApiKey, server.url));
  logger.info({ url: server.url, port: server.port, node: process.version, database: config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : config.databaseFile, metrics: server.metricsUrl }, 'Petstore is listening');

  let stopping = false;
  const shutDown = (signal: NodeJS.Signals) => {
    // Under `pnpm start` a stop comes twice: a terminal signals the whole process group, and pnpm
    // passes the same signal on to the service. The shutdown under way answers both; a second
    // signal left to Node's default would kill the service before its requests finish.
    if (stopping) return;
    stopping = true;
    const signalledAt = performance.now();
    logger.info({ signal, delayMs: config.shutdownDelayMs, graceMs: config.shutdownGraceMs, idleMs: config.shutdownIdleMs }, 'stopping: answering the requests taken, taking no new ones');
    server.close().then(
      () => {
        logger.info({ ms: Math.round(performance.now() - signalledAt) }, 'stopped');
        logger.flush();
      },
      (error: unknown) => {
        logger.error({ err: error }, 'stopping failed');
        process.exitCode = 1;
      },
    );
  };
  process.on('SIGTERM', shutDown);
  process.on('SIGINT', shutDown);
};

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
