import { test as base } from 'vitest';
import type { Database } from '../storage/database.js';
import type { Engine } from './engines.js';
import { createScratchPostgresDatabase } from './scratch-postgres.js';
import { skipOnSqliteElsewhere, skipWithout } from './sqlite-only.js';

/**
 * vitest's `test`, with storage to test against; each fixture is made only for the tests that ask
 * for it, and removed when the test ends, whether it passed or not.
 *
 * - `scratchPostgres`: a new, empty database on the test server, not migrated: for tests that
 *   open it themselves or look behind the service's back. Skipped in a SQLite-only run.
 *
 * Tables go through `test.for`, since `test.each` hands its callback no fixtures.
 */
export const test = base.extend(
  'scratchPostgres',
  async ({ skip }, { onCleanup }) => {
    skipWithout('PostgreSQL', skip);
    const scratch = await createScratchPostgresDatabase();
    onCleanup(() => scratch.drop());
    return scratch;
  },
);

export const it = test;

/**
 * `test`, plus `db`: a fresh, migrated, empty database of the engine, for the storage tests that
 * run once per engine: `describe.each(ENGINES)('… on $name', (engine) => { const it = testOn(engine); … })`.
 * An engine on a server is skipped in a SQLite-only run.
 */
export const testOn = (engine: Engine) =>
  test.extend('db', async ({ skip }, { onCleanup }): Promise<Database> => {
    if (engine.needs) skipWithout(engine.needs, skip);
    else skipOnSqliteElsewhere(skip);
    const opened = await engine.open();
    onCleanup(() => opened.dispose());
    return opened.db;
  });
