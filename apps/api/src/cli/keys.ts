import { ApiKeyError, type ApiKeySummary, createApiKeys, openSqliteDatabase } from '@petstore/core';
import { ConfigError, readConfig } from '../config.js';

const USAGE = `Usage:
  pnpm keys create <name>         create a key; the key itself is printed alone on the last line
  pnpm keys list                  list keys (never their secrets)
  pnpm keys revoke <name-or-id>   revoke a key; servers refuse it at once
The database is PETSTORE_DB (default ./data/petstore.db), as for the server.`;

class UsageError extends Error {}

const date = (value: Date | null) => (value ? value.toISOString().replace(/\.\d+Z$/, 'Z') : '-');

const table = (keys: ApiKeySummary[]) => {
  const rows = [
    ['ID', 'NAME', 'PREFIX', 'CREATED', 'REVOKED'],
    ...keys.map((key) => [String(key.id), key.name, key.prefix, date(key.createdAt), date(key.revokedAt)]),
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd());
};

const run = async (args: string[]): Promise<string[]> => {
  const [command, argument, ...rest] = args;
  const expectArgument = (count: number) => {
    if ((argument === undefined ? 0 : 1) + rest.length !== count) throw new UsageError();
  };
  const config = readConfig();
  const db = openSqliteDatabase(config.databaseFile);
  const keys = createApiKeys(db.apiKeys);
  try {
    switch (command) {
      case 'create': {
        expectArgument(1);
        const { key, token } = await keys.create(argument ?? '');
        return [`Created key ${key.id} "${key.name}". It is shown only this once:`, token];
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
