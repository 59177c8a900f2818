import { parseArgs } from 'node:util';
import { API_KEY_SCOPES, ApiKeyError, type ApiKeyEvent, ApiKeyScope, type ApiKeySummary, createApiKeys, openDatabase } from '@petstore/core';
import { pino } from 'pino';
import { ConfigError, SETTINGS, readConfig, variableOf } from '../settings/config.js';
import { describeStore } from '../settings/store-description.js';
import { versionLine } from '../settings/version.js';
import { UsageError, commandAsRun, runCli, usageErrorFrom } from './run-cli.js';

const COMMAND = commandAsRun();

/** How long running servers may still take a revoked key, as their settings say by default. */
const REFUSED_WITHIN = `within ${variableOf('apiKeyCacheMs')} (${SETTINGS.apiKeyCacheMs.schema.parse(undefined)} ms unless set otherwise)`;

const USAGE = `Usage:
  ${COMMAND} create <name> [--expires <n>d|h|m] [--scope <scope>]...
      create a key, valid for good or for n days, hours or minutes, allowed the scopes named
      (${API_KEY_SCOPES.join(', ')}; default all); the key itself is printed alone on the last line.
      A name is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or a digit.
  ${COMMAND} rotate <name-or-id> [--grace <n>d|h|m|0]
      a new key for the same name and scopes, printed alone on the last line; the old one works
      until the grace ends (default 24h; 0 ends it now, for a key that leaked)
  ${COMMAND} list
      list keys, with their state, expiry and last use (never their secrets)
  ${COMMAND} revoke <name-or-id>
      by name, revoke every key of the name that still works (a rotated one in its grace too);
      by id, that key alone. Running servers refuse a revoked key ${REFUSED_WITHIN}.
  ${COMMAND} log [name]
      the audit trail: keys created, rotated, revoked, first used after a rotation
  ${COMMAND} help | --help | -h       this text
  ${COMMAND} --version                the version
The store is the server's: ${variableOf('databaseUrl')} (PostgreSQL) when set, else ${variableOf('databaseFile')} (SQLite,
default ${SETTINGS.databaseFile.schema.parse(undefined)}); every command says on stderr which store it used.`;

type Request =
  | { command: 'help' }
  | { command: 'version' }
  | { command: 'create'; name: string; expiresAt: Date | null; scopes: ApiKeyScope[] | undefined }
  | { command: 'list' }
  | { command: 'revoke'; nameOrId: string }
  | { command: 'rotate'; nameOrId: string; graceMs: number | undefined }
  | { command: 'log'; name: string | undefined };

/** What each command takes after its name; list takes nothing. */
const OPERAND = { create: '<name>', list: undefined, revoke: '<name-or-id>', rotate: '<name-or-id>', log: '[name]' } as const;
const isCommand = (word: string): word is keyof typeof OPERAND => Object.hasOwn(OPERAND, word);
const quoted = (words: string[]) => words.map((word) => `"${word}"`).join(' ');

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

const wrongDuration = (duration: string | undefined) =>
  new UsageError(`--expires takes a duration such as 30d, 12h or 90m${duration === undefined ? '' : `, not "${duration}"`}.`);

const scopesFrom = (words: string[] | undefined): ApiKeyScope[] | undefined =>
  words?.map((word) => {
    const scope = ApiKeyScope.safeParse(word);
    if (!scope.success) throw new UsageError(`--scope takes ${API_KEY_SCOPES.join(' or ')}, not "${word}".`);
    return scope.data;
  });

/** `24h`, `2d` or `30m`; `0` (or `0m`, `0h`, `0d`): none. */
const graceFrom = (duration: string): number => {
  if (/^0[mhd]?$/.test(duration)) return 0;
  const match = /^([1-9][0-9]{0,5})([mhd])$/.exec(duration);
  if (!match) throw new UsageError(`--grace takes a duration such as 24h, 2d or 30m, or 0 to end the old key now, not "${duration}".`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
};

/** `30d`, `12h` or `90m` from now. */
const expiryFrom = (duration: string): Date => {
  const match = /^([1-9][0-9]{0,5})([mhd])$/.exec(duration);
  if (!match) throw wrongDuration(duration);
  return new Date(Date.now() + Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
};

/** A command line parseArgs refused: `--expires -5d` or a bare `--expires` says which value is wrong or missing. */
const refusedCommandLine = (error: unknown, args: string[]) => {
  if (!(error instanceof Error) || !error.message.includes("'--expires")) return usageErrorFrom(error);
  const option = args.indexOf('--expires');
  return wrongDuration(option === -1 ? undefined : args[option + 1]);
};

/** Reads the whole command line before anything touches the database. */
const parse = (args: string[]): Request => {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        expires: { type: 'string' },
        scope: { type: 'string', multiple: true },
        grace: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
      allowPositionals: true,
    });
  } catch (error) {
    throw refusedCommandLine(error, args);
  }
  const { values, positionals } = parsed;
  const [command, ...operands] = positionals;
  if (values.help !== true && values.version === true) return { command: 'version' };
  if (values.help === true || command === undefined || command === 'help') return { command: 'help' };
  if (!isCommand(command)) throw new UsageError(`There is no "${command}" command: use create, list, rotate, revoke or log.`);
  if (values.expires !== undefined && command !== 'create') throw new UsageError('--expires goes with create only.');
  if (values.scope !== undefined && command !== 'create') throw new UsageError('--scope goes with create only.');
  if (values.grace !== undefined && command !== 'rotate') throw new UsageError('--grace goes with rotate only.');
  const operandName = OPERAND[command];
  if (operandName === undefined && operands.length > 0) throw new UsageError(`${command} takes no arguments, not ${quoted(operands)}.`);
  if (operandName !== undefined && operandName !== '[name]' && operands.length === 0) throw new UsageError(`${command} needs a ${operandName}.`);
  if (operandName !== undefined && operands.length > 1) throw new UsageError(`${command} takes one ${operandName}, not ${quoted(operands)}.`);
  const operand = operands[0] ?? '';
  switch (command) {
    case 'create':
      return { command, name: operand, expiresAt: values.expires === undefined ? null : expiryFrom(values.expires), scopes: scopesFrom(values.scope) };
    case 'list':
      return { command };
    case 'revoke':
      return { command, nameOrId: operand };
    case 'rotate':
      return { command, nameOrId: operand, graceMs: values.grace === undefined ? undefined : graceFrom(values.grace) };
    case 'log':
      return { command, name: operands[0] };
  }
};

const date = (value: Date | null) => (value ? value.toISOString().replace(/\.\d+Z$/, 'Z') : '-');

const aligned = (rows: string[][]) => {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd());
};

const trail = (events: ApiKeyEvent[]) =>
  aligned([
    ['AT', 'EVENT', 'KEY', 'NAME', 'DETAIL'],
    ...events.map((entry) => [date(entry.at), entry.event, String(entry.keyId), entry.keyName, entry.detail ?? '']),
  ]);

const table = (keys: ApiKeySummary[]) => {
  const rows = [
    ['ID', 'NAME', 'PREFIX', 'CREATED', 'EXPIRES', 'LAST USED', 'REVOKED', 'SCOPES', 'STATE'],
    ...keys.map((key) => [
      String(key.id),
      key.name,
      key.prefix,
      date(key.createdAt),
      date(key.expiresAt),
      date(key.lastUsedAt),
      date(key.revokedAt),
      key.scopes.join(','),
      key.rotatedFrom === null ? key.state : `${key.state} (replaces ${key.rotatedFrom})`,
    ]),
  ];
  return aligned(rows);
};

/** What a revocation printed: each key revoked, then those of the name that still work, and how to end them. */
const revocation = ({ revoked, stillWorking }: { revoked: ApiKeySummary[]; stillWorking: ApiKeySummary[] }) => [
  ...revoked.map((key) => `Revoked key ${key.id} "${key.name}".`),
  `Running servers refuse ${revoked.length === 1 ? 'it' : 'them'} ${REFUSED_WITHIN}.`,
  ...stillWorking.map(
    (key) => `Key ${key.id} "${key.name}" still works (${key.state}${key.expiresAt ? ` until ${date(key.expiresAt)}` : ''}): ${COMMAND} revoke ${key.id} ends it, ${COMMAND} revoke ${key.name} every key of the name.`,
  ),
];

const run = async (request: Exclude<Request, { command: 'help' | 'version' }>): Promise<string[]> => {
  const config = readConfig();
  // On stderr, so stdout stays what scripts read: a key made on the wrong store is noticed here.
  process.stderr.write(`Store: ${describeStore(config)}\n`);
  if (config.databaseUrl === undefined && config.databaseFile === ':memory:') {
    throw new ConfigError(`${variableOf('databaseFile')} is :memory:, a store that lives only inside one process: what this command did would be gone when it ends.`);
  }
  // One connection: a command runs one statement at a time.
  const db = await openDatabase({ url: config.databaseUrl, sqliteFile: config.databaseFile, connections: { pool: 1, reads: 0 } });
  // Audit entries go to stderr as JSON lines, so stdout stays what scripts read.
  const logger = pino({ level: config.logLevel, base: undefined }, pino.destination({ fd: 2, sync: true }));
  const keys = createApiKeys(db.apiKeys, {
    audit: (entry) => {
      logger.info({ audit: entry }, `API key ${entry.event}`);
    },
  });
  try {
    switch (request.command) {
      case 'create': {
        const { key, token } = await keys.create(request.name, { expiresAt: request.expiresAt, scopes: request.scopes });
        const until = key.expiresAt ? `, valid until ${date(key.expiresAt)}` : '';
        return [`Created key ${key.id} "${key.name}" (${key.scopes.join(', ')})${until}. It is shown only this once:`, token];
      }
      case 'list': {
        const listed = await keys.list();
        return listed.length > 0 ? table(listed) : [`No keys yet. Create one: ${COMMAND} create <name>`];
      }
      case 'rotate': {
        const { key, replaced, token } = await keys.rotate(request.nameOrId, { graceMs: request.graceMs });
        const ended = request.graceMs === 0 ? `it no longer works; running servers refuse it ${REFUSED_WITHIN}` : `it works until ${date(replaced.expiresAt)}`;
        return [
          `Rotated key ${replaced.id} "${replaced.name}": ${ended}.`,
          `Its replacement is key ${key.id} (${key.scopes.join(', ')}). It is shown only this once:`,
          token,
        ];
      }
      case 'log': {
        const events = await keys.log(request.name);
        return events.length > 0 ? trail(events) : ['Nothing recorded yet.'];
      }
      case 'revoke':
        return revocation(await keys.revoke(request.nameOrId));
    }
  } finally {
    await db.close();
  }
};

const main = async (): Promise<string[]> => {
  const request = parse(process.argv.slice(2));
  if (request.command === 'help') return [USAGE];
  if (request.command === 'version') return [versionLine()];
  return run(request);
};

runCli(async () => (await main()).join('\n'), USAGE, (error): error is Error => error instanceof ApiKeyError || error instanceof ConfigError);
