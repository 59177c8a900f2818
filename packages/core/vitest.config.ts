import { globSync, readFileSync } from 'node:fs';
import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';
import { keptWith } from './src/testing/sqlite-only.js';

/**
 * The tiers (DEVELOPERS.md): `unit` needs nothing; `sqlite` the embedded SQLite (any file not
 * listed elsewhere); `postgres` a PostgreSQL server (and PgBouncer for one file). A file that tests
 * both engines runs in `sqlite` for its SQLite cases and in `postgres` for the others.
 */
const UNIT = [
  'src/compiled-input.test.ts',
  'src/db/group-commit.test.ts',
  'src/errors/error-body.test.ts',
  'src/keys/api-key-token.test.ts',
  'src/pets/create/idempotency.test.ts',
  'src/pets/list/list-query.test.ts',
  'src/pets/pet.test.ts',
  'src/storage/storage-unavailable.test.ts',
  'src/testing/sqlite-only.test.ts',
];

/** Files that test both engines, each case on one. */
const BOTH_ENGINES = [
  'src/db/key-lineage-migration.test.ts',
  'src/keys/api-keys.test.ts',
  'src/operation/call-operation.test.ts',
  'src/pets/create/add-pet.test.ts',
  'src/pets/create/idempotency-pruning.test.ts',
  'src/pets/operations.test.ts',
  'src/storage/database.test.ts',
];

const ON_POSTGRES = ['src/db/postgres/**/*.test.ts', ...BOTH_ENGINES];

// A file with a case on PostgreSQL that the postgres project would not run fails the run here.
const unlisted = globSync('src/**/*.test.ts', { cwd: import.meta.dirname }).filter(
  (file) => !file.startsWith('src/db/postgres/') && !BOTH_ENGINES.includes(file) && /\b(testOn|scratchPostgres|ENGINES)\b/.test(readFileSync(new URL(file, import.meta.url), 'utf8')),
);
if (unlisted.length > 0) throw new Error(`Tests on PostgreSQL outside core's postgres project: add ${unlisted.join(', ')} to BOTH_ENGINES.`);

// Not `extends: true`, which would add the shared include list to each project's.
const project = (name: string, include: string[], env: Record<string, string> = {}, exclude: string[] = []) => ({
  resolve: shared.resolve,
  ssr: shared.ssr,
  test: { ...shared.test, name, include, env, exclude: [...exclude, '**/node_modules/**'] },
});

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      projects: [
        project('unit', UNIT),
        // What needs PostgreSQL is skipped here, as in a SQLite-only run.
        project('sqlite', ['src/**/*.test.ts'], { PETSTORE_TEST_SQLITE_ONLY: '1' }, [...UNIT, 'src/db/postgres/**']),
        ...(keptWith('PostgreSQL', "core's postgres project") ? [project('postgres', ON_POSTGRES, { PETSTORE_TEST_ENGINE: 'postgres' })] : []),
      ],
    },
  }),
);
