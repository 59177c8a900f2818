/**
 * A SQLite-only run (`npx pnpm test:sqlite`) runs every test that needs neither PostgreSQL, Redis,
 * Chromium, nginx, HAProxy nor PgBouncer, and must pass on a machine that has none of them. This variable says a run is one;
 * it is read here and nowhere else. The vitest configs import this file by its path: they load
 * before the `petstore-source` condition that names it as a package export applies.
 */
const SQLITE_ONLY = process.env.PETSTORE_TEST_SQLITE_ONLY === '1';

/** What some tests need beyond the embedded SQLite every run has. */
export type ExternalNeed = 'PostgreSQL' | 'Redis' | 'Chromium' | 'nginx' | 'HAProxy' | 'PgBouncer';

const goneWithout = (need: ExternalNeed) => `needs ${need}, which a SQLite-only run goes without`;

export const isSqliteOnlyRun = (): boolean => SQLITE_ONLY;

/**
 * A project that runs the files testing both engines for their PostgreSQL cases only (the system
 * tier's `postgres` projects, `PETSTORE_TEST_ENGINE=postgres`): their SQLite cases run in the
 * `sqlite` project of the contract tier, once.
 */
const SQLITE_ELSEWHERE = process.env.PETSTORE_TEST_ENGINE === 'postgres';

export const isSqliteElsewhere = (): boolean => SQLITE_ELSEWHERE;

/** For a test or fixture on the embedded SQLite in a file that tests both engines: skips it, saying why, where it runs elsewhere. */
export const skipOnSqliteElsewhere = (skip: (note: string) => void): void => {
  if (SQLITE_ELSEWHERE) skip('on SQLite, which the sqlite project runs');
};

/** For the fixture that opens what a test needs: skips the test, saying why, in a SQLite-only run. */
export const skipWithout = (need: ExternalNeed, skip: (note: string) => void): void => {
  if (SQLITE_ONLY) skip(goneWithout(need));
};

/**
 * For whatever opens it outside a fixture: in a SQLite-only run that is a test nobody left out,
 * so it fails here, saying what to do, rather than on a refused connection or a missing browser.
 */
export const refuseWithout = (need: ExternalNeed): void => {
  if (SQLITE_ONLY) throw new Error(`This test ${goneWithout(need)}: leave it out of such runs in its vitest config (leftOutWithout).`);
};

/** What was said left out, kept on the process: vitest loads a config again for each project that extends it. */
const saidLeftOut = ((globalThis as { petstoreSaidLeftOut?: Set<string> }).petstoreSaidLeftOut ??= new Set());

/** For a vitest config: whether to keep `what`, which needs `need`; when not, it says so once. */
export const keptWith = (need: ExternalNeed, what: string): boolean => {
  if (!SQLITE_ONLY) return true;
  const note = `SQLite-only run: left out ${what}: ${goneWithout(need)}.`;
  if (!saidLeftOut.has(note)) console.info(note);
  saidLeftOut.add(note);
  return false;
};

/** For a vitest config: the test files to leave out of this run, by what each needs. */
export const leftOutWithout = (needs: Partial<Record<ExternalNeed, readonly string[]>>): string[] =>
  (Object.entries(needs) as [ExternalNeed, readonly string[]][]).flatMap(([need, files]) =>
    files.length === 0 || keptWith(need, files.join(', ')) ? [] : files,
  );
