/**
 * What the bench and its own targets (the peers and the bare servers) say to each other: the bench
 * hands a target its storage and the one API key in these variables, spelled only here; the
 * target answers with one line on stdout once it listens. The service is not one of them: it is
 * started with its own settings.
 */
const HANDED = {
  databaseFile: 'BENCH_TARGET_DATABASE_FILE',
  databaseUrl: 'BENCH_TARGET_DATABASE_URL',
  apiKey: 'BENCH_TARGET_API_KEY',
} as const;

/** Where a target's data is: a SQLite file, or a PostgreSQL database. */
export type TargetDatabase = { file: string } | { url: string };

/** The environment that hands a target its database and the key it holds. */
export const handedEnvironment = (database: TargetDatabase, apiKey: string): Record<string, string> => ({
  ...('file' in database ? { [HANDED.databaseFile]: database.file } : { [HANDED.databaseUrl]: database.url }),
  [HANDED.apiKey]: apiKey,
});

const handed = (name: keyof typeof HANDED): string => {
  const value = process.env[HANDED[name]];
  if (!value) throw new Error(`${HANDED[name]} is not set: targets are started by the bench`);
  return value;
};

export const databaseFile = () => handed('databaseFile');
export const databaseUrl = () => handed('databaseUrl');
/** The one API key a peer or bare server accepts, as the issue measures them: held in memory. */
export const heldApiKey = () => handed('apiKey');

export const announceReady = (port: number) => {
  process.stdout.write(`READY ${port}\n`);
};

/** The line `announceReady` writes, as whoever started the target reads it: the port is its group. */
export const READY_LINE = /READY (\d+)/;
