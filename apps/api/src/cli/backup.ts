import { constants } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BackupError, backupSqliteFile } from '@petstore/core';
import { ConfigError, SETTINGS, readConfig, variableOf } from '../settings/config.js';
import { versionLine } from '../settings/version.js';
import { UsageError, commandAsRun, runCli, usageErrorFrom } from './run-cli.js';

const USAGE = `Usage:
  ${commandAsRun()} <file> [--force]
                        copy the live SQLite store to <file> while the service keeps serving:
                        every animal created before it began, checked with SQLite's
                        integrity_check; <file> is written whole or not at all
  --force               replace <file> if it exists
  --help, -h            this text
  --version             the version
A relative <file> starts from the folder the command runs in. The store is the server's:
${variableOf('databaseFile')} (default ${SETTINGS.databaseFile.schema.parse(undefined)}). A store on PostgreSQL (${variableOf('databaseUrl')} set) is backed up with pg_dump.`;

type Request = { command: 'help' } | { command: 'version' } | { command: 'backup'; file: string; force: boolean };

const parse = (args: string[]): Request => {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } },
      allowPositionals: true,
    });
  } catch (error) {
    throw usageErrorFrom(error);
  }
  const { values, positionals } = parsed;
  if (values.help === true) return { command: 'help' };
  if (values.version === true) return { command: 'version' };
  const [file, ...more] = positionals;
  if (file === undefined || file === '') throw new UsageError('backup needs a <file> to write the copy to.');
  if (more.length > 0) throw new UsageError(`backup takes one <file>, not ${positionals.map((word) => `"${word}"`).join(' ')}.`);
  return { command: 'backup', file, force: values.force === true };
};

/** Where the command was typed: the bin passes it on, since it runs this from apps/api. */
const callerFolder = () => process.env.PETSTORE_CALLER_DIR ?? process.cwd();

const run = async ({ file, force }: { file: string; force: boolean }): Promise<string> => {
  const config = readConfig();
  if (config.databaseUrl !== undefined) {
    throw new ConfigError(
      `The store is on PostgreSQL (${variableOf('databaseUrl')} is set), which this command does not copy: back it up with pg_dump (docs/operating.md, Backups).`,
    );
  }
  if (config.databaseFile === ':memory:') {
    throw new ConfigError(`${variableOf('databaseFile')} is :memory:, a store that lives only inside the service's process: there is no file to back up.`);
  }
  const source = resolve(config.databaseFile);
  const target = resolve(callerFolder(), file);

  // A terminal's Ctrl-C reaches this process twice under pnpm (from the terminal and from pnpm);
  // stopping is the same answer to both. The backup stops between two steps and removes its
  // partial file, so <file> is never left half-written.
  const stop = new AbortController();
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    signalled ??= signal;
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const { pages, animals, seconds } = await backupSqliteFile(source, target, {
      overwrite: force,
      signal: stop.signal,
      timeouts: { connectMs: config.databaseConnectTimeoutMs, statementMs: config.databaseStatementTimeoutMs },
    });
    return `Backed up ${source} to ${target}: ${pages} pages, ${animals} animals, ${seconds.toFixed(2)} s; integrity_check ok.`;
  } catch (error) {
    if (signalled !== undefined) process.exitCode = 128 + constants.signals[signalled];
    if (error instanceof BackupError && error.refusal === 'exists') throw new BackupError(error.refusal, `${error.message} Add --force to replace it.`);
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
};

const main = async (): Promise<string> => {
  const request = parse(process.argv.slice(2));
  if (request.command === 'help') return USAGE;
  if (request.command === 'version') return versionLine();
  return run(request);
};

runCli(main, USAGE, (error): error is Error => error instanceof BackupError || error instanceof ConfigError);
