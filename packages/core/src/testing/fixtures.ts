import { test as base } from 'vitest';
import type { Database } from '../db/database.js';
import type { Engine } from './engines.js';
import { createScratchPostgresDatabase } from './scratch-postgres.js';

/**
 * vitest's `test`, with storage to test against; each fixture is made only for the tests that ask
 * for it, and removed when the test ends, whether it passed or not.
 *
 * - `scratchPostgres`: a new, empty database on the test server, not migrated: for tests that
 *   open it themselves or look behind the service's back.
 *
 * Tables go through `test.for`, since `test.each` hands its callback no fixtures.
 */
export const test = base.extend(
  'scratchPostgres',
  // eslint-disable-next-line no-empty-pattern -- vitest reads the fixtures a fixture needs from this pattern
  async ({}, { onCleanup }) => {
    const scratch = await createScratchPostgresDatabase();
    onCleanup(() => scratch.drop());
    return scratch;
  },
);

export const it = test;

/**
 * `test`, plus `db`: a fresh, migrated, empty database of the engine, for the storage tests that
 * run once per engine: `describe.each(ENGINES)('… on $name', (engine) => { const it = testOn(engine); … })`.
 */
export const testOn = (engine: Engine) =>
  // eslint-disable-next-line no-empty-pattern -- vitest reads the fixtures a fixture needs from this pattern
  test.extend('db', async ({}, { onCleanup }): Promise<Database> => {
    const opened = await engine.open();
    onCleanup(() => opened.dispose());
    return opened.db;
  });
