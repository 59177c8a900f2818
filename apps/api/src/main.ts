import { writeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { KEYS_COMMAND } from './cli/keys-command.js';
import { usageErrorFrom } from './cli/run-cli.js';
import { ConfigError, type Config, SETTINGS, readConfig, variableOf } from './settings/config.js';
import { logDestination } from './settings/log-destination.js';
import { createLogger } from './settings/logger.js';
import { describeStore } from './settings/store-description.js';
import { VERSION, versionLine } from './settings/version.js';
import { startServer } from './server.js';

const defaultOf = (key: keyof typeof SETTINGS) => String(SETTINGS[key].schema.parse(undefined) ?? 'unset');

const USAGE = `${versionLine()}: the pet store's HTTP service. REST under /v1 (its OpenAPI document at
/v1/openapi.json, browsable at /docs), tRPC under /trpc, /healthz and /readyz.

Usage:
  npx pnpm start              from a checkout: builds what changed, then runs the service
  node dist/main.js           the built service, from apps/api (the image runs this)
  ... --help, -h              this text
  ... --version               the version

Every setting is an environment variable, read once at start (docs/operating.md, Configuration):
  ${variableOf('port')} (${defaultOf('port')}), ${variableOf('host')} (${defaultOf('host')}), ${variableOf('databaseUrl')} (PostgreSQL) or ${variableOf('databaseFile')} (SQLite, ${defaultOf('databaseFile')}),
  ${variableOf('redisUrl')}, ${variableOf('trustProxy')}, ${variableOf('logLevel')} (${defaultOf('logLevel')}), and ${Object.keys(SETTINGS).length - 7} more.
API keys: ${KEYS_COMMAND} help (in the image: node dist/cli/keys.js help).
Backups of a SQLite store: npx pnpm backup --help (in the image: node dist/cli/backup.js --help).`;

/** A command line the service does not take: one line saying why, then the usage, exit code 2. */
const refuseCommandLine = (reason: string) => {
  process.stderr.write(`${reason}\n\n${USAGE}\n`);
  process.exitCode = 2;
};

/** The service takes only --help and --version: anything else would be a setting given the wrong way. */
const commandLine = (): 'serve' | 'help' | 'version' | undefined => {
  let values;
  try {
    ({ values } = parseArgs({ args: process.argv.slice(2), options: { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } } }));
  } catch (error) {
    refuseCommandLine(`${usageErrorFrom(error).message} Settings are environment variables, such as PORT=3001.`);
    return undefined;
  }
  if (values.help === true) return 'help';
  if (values.version === true) return 'version';
  return 'serve';
};

/** Why the service could not listen, in a line naming the setting to change; undefined for any other failure. */
const listenFailure = (error: unknown, config: Config): string | undefined => {
  const { code, port } = error as { code?: unknown; port?: unknown };
  if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL') return undefined;
  const variable = port !== undefined && port === config.metricsPort && port !== config.port ? variableOf('metricsPort') : variableOf('port');
  const at = `${config.host}:${String(port)}`;
  if (code === 'EADDRINUSE') return `Port ${String(port)} on ${config.host} is taken by another process. Stop it, or set ${variable} to a free port (${variable}=0 picks one).`;
  if (code === 'EACCES') return `Listening on ${at} is not allowed to this user (ports below 1024 need privileges). Set ${variable} to 1024 or above.`;
  return `${variableOf('host')} ${config.host} is no address of this machine. Set ${variableOf('host')} to one of its addresses (127.0.0.1, or 0.0.0.0 for all).`;
};

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
  const asked = commandLine();
  if (asked === undefined) return;
  if (asked !== 'serve') {
    process.stdout.write(`${asked === 'help' ? USAGE : versionLine()}\n`);
    return;
  }
  const config = readConfig();
  const logger = createLogger(config.logLevel, logDestination(), config.logBacklogBytes);
  let server;
  try {
    server = await startServer(config, logger);
  } catch (error) {
    const failure = listenFailure(error, config);
    if (failure === undefined) throw error;
    logger.flush();
    process.stderr.write(`${failure}\n`);
    process.exitCode = 1;
    return;
  }
  // Written synchronously so it is on the terminal before the log line that follows it.
  if (server.firstApiKey) writeSync(1, firstKeyBanner(server.firstApiKey, server.url));
  logger.info(
    { version: VERSION, url: server.url, port: server.port, docs: `${server.url}/docs`, node: process.version, database: describeStore(config), metrics: server.metricsUrl },
    'Petstore is listening',
  );

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
