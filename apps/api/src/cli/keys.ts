import { ApiKeyError, type ApiKeySummary, createApiKeys, openDatabase } from '@petstore/core';
import { ConfigError, readConfig } from '../config.js';

const USAGE = `Usage:
  pnpm keys create <name> [--expires <n>d|h|m]
                                  create a key, valid for good or for n days, hours or minutes;
                                  the key itself is printed alone on the last line
  pnpm keys list                  list keys, with their expiry and last use (never their secrets)
  pnpm keys revoke <name-or-id>   revoke a key; servers refuse it at once
The database is the server's: DATABASE_URL (PostgreSQL) when set, else PETSTORE_DB (SQLite,
default ./data/petstore.db).`;

class UsageError extends Error {}

const date = (value: Date | null) => (value ? value.toISOString().replace(/\.\d+Z$/, 'Z') : '-');

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `30d`, `12h` or `90m` from now. */
const expiryFrom = (duration: string): Date => {
  const match = /^([1-9][0-9]{0,5})([mhd])$/.exec(duration);
  if (!match) throw new ApiKeyError(`--expires takes a duration such as 30d, 12h or 90m, not "${duration}".`);
  return new Date(Date.now() + Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
};

const table = (keys: ApiKeySummary[]) => {
  const rows = [
    ['ID', 'NAME', 'PREFIX', 'CREATED', 'EXPIRES', 'LAST USED', 'REVOKED'],
    ...keys.map((key) => [
      String(key.id),
      key.name,
      key.prefix,
      date(key.createdAt),
      date(key.expiresAt),
      date(key.lastUsedAt),
      date(key.revokedAt),
    ]),
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd());
};

const run = async (args: string[]): Promise<string[]> => {
  const [command, argument, ...rest] = args;
  const expectArgument = (count: number) => {
    if ((argument === undefined ? 0 : 1) + rest.length !== count) throw new UsageError();
  };
  // `create <name> --expires 30d`: the option is read here, the rest counted as usual.
  let expiresAt: Date | null = null;
  if (command === 'create' && rest[0] === '--expires') {
    if (rest[1] === undefined) throw new UsageError();
    expiresAt = expiryFrom(rest[1]);
    rest.splice(0, 2);
  }
  const config = readConfig();
  const db = await openDatabase({ url: config.databaseUrl, sqliteFile: config.databaseFile, poolSize: 1 });
  const keys = createApiKeys(db.apiKeys);
  try {
    switch (command) {
      case 'create': {
        expectArgument(1);
        const { key, token } = await keys.create(argument ?? '', { expiresAt });
        const until = key.expiresAt ? `, valid until ${date(key.expiresAt)}` : '';
        return [`Created key ${key.id} "${key.name}"${until}. It is shown only this once:`, token];
      }
      case 'list': {
        expectArgument(0);
        const listed = await keys.list();
        return listed.length > 0 ? table(listed) : ['No keys yet. Create one: pnpm keys create <name>'];
      }
      case 'revoke': {
        expectArgument(1);
        const key = await keys.revoke(argument ?? '');
        return [`Revoked key ${key.id} "${key.name}".`];
      }
      default:
        throw new UsageError();
    }
  } finally {
    await db.close();
  }
};

run(process.argv.slice(2)).then(
  (lines) => {
    process.stdout.write(`${lines.join('\n')}\n`);
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    const known = error instanceof ApiKeyError || error instanceof ConfigError;
    process.stderr.write(`${known ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
