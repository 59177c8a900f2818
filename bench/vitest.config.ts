import { defineConfig, mergeConfig } from 'vitest/config';
import { keptWith } from '../packages/core/src/testing/sqlite-only.js';
import shared from '../vitest.shared.js';

/**
 * The tiers (DEVELOPERS.md): `unit` needs nothing (the verdicts and the order of rounds); `sqlite`
 * starts the targets on SQLite; `postgres` the targets on PostgreSQL (targets-contract.test.ts
 * runs in both, each target in one).
 */
const UNIT = [
  'test/bare-server-verdicts.test.ts',
  'test/before-verdict.test.ts',
  'test/features-peer-verdict.test.ts',
  'test/metrics-verdict.test.ts',
  'test/pgbouncer-ratios.test.ts',
  'test/round-order.test.ts',
  'test/stream-verdict.test.ts',
];
const BOTH_ENGINES = ['test/targets-contract.test.ts'];

// Not `extends: true`, which would add the shared include list to each project's.
const project = (name: string, test: object) => ({ resolve: shared.resolve, ssr: shared.ssr, test: { ...shared.test, name, ...test } });

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      projects: [
        project('unit', { include: UNIT }),
        // What needs PostgreSQL is skipped here, as in a SQLite-only run.
        project('sqlite', { exclude: [...UNIT, '**/node_modules/**'], env: { PETSTORE_TEST_SQLITE_ONLY: '1' } }),
        ...(keptWith('PostgreSQL', "the bench's postgres project") ? [project('postgres', { include: BOTH_ENGINES, env: { PETSTORE_TEST_ENGINE: 'postgres' } })] : []),
      ],
    },
  }),
);
