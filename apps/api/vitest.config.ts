import { defineConfig, mergeConfig } from 'vitest/config';
import { type ExternalNeed, keptWith, leftOutWithout } from '../../packages/core/src/testing/sqlite-only.js';
import shared from '../../vitest.shared.js';

/**
 * Each file in a module graph of its own, unlike the other packages: a file's top-level
 * `test.override({ serverEnv })` replaces the fixtures' defaults for good in vitest 4.1, so in a
 * worker shared with later files it would start their servers with its settings too.
 */
const ISOLATED = true;

/** Tests that do not touch storage; they run once, in the SQLite project. */
const ENGINE_INDEPENDENT = [
  'src/openapi/**',
  'src/front-door/**',
  'src/trpc/**',
  'src/admission/**',
  'src/settings/**',
  'src/testing/contract.test.ts',
  'test/openapi-document.test.ts',
  'test/openapi-expectations.test.ts',
  'test/docs-page.test.ts',
  'test/cors.test.ts',
  'test/deployment-files.test.ts',
  'test/image-build.test.ts',
  'test/layers.test.ts',
  'test/early-refusal.test.ts',
  'test/hostile-clients.test.ts',
  'test/front-door-own-answers.test.ts',
  'test/largest-answer.test.ts',
  'test/behind-nginx-client-address.test.ts',
  'test/behind-nginx-over-tls.test.ts',
  'test/bounds-documented.test.ts',
  // Its reference is tRPC's adapter on a SQLite file of its own, whatever the project's engine.
  'test/trpc-wire.test.ts',
];

/**
 * Files that load the machine to prove a bound (thousands of connections, open-loop load,
 * neighbours spinning on both cores, answers of megabytes): they run after every other file, one
 * at a time, so that none of them is the load another file's timings meet, nor another's theirs.
 */
const LOADING = [
  'test/hostile-memory-sweep.test.ts',
  'test/hostile-log.test.ts',
  'test/heavy-client.test.ts',
  'test/hostile-unread-answers.test.ts',
  'test/hostile-connections.test.ts',
  'test/busy-host.test.ts',
  'test/overload.test.ts',
];

/** The contract tests of `/v1` and `/trpc`, which need nothing of the app around them. */
const EXPRESS_MOUNTED = [
  'test/list-pets.test.ts',
  'test/create-pet.test.ts',
  'test/get-pet.test.ts',
  'test/auth.test.ts',
  'test/idempotency.test.ts',
  'test/rate-limit.test.ts',
  'test/trpc.test.ts',
  'test/api-key-scopes.test.ts',
];

/** Tests of the unit tier: they start nothing, neither the service nor a store nor a process. */
const UNIT = [
  'src/front-door/access-line.test.ts',
  'src/observability/request-durations.test.ts',
  'src/openapi/bounds.test.ts',
  'src/openapi/document.test.ts',
  'src/settings/config.test.ts',
  'src/settings/tracing-setting.test.ts',
  'src/testing/contract.test.ts',
  'src/trpc/json-lines.test.ts',
  'test/layers.test.ts',
  'test/bounds-documented.test.ts',
  'test/deployment-files.test.ts',
  'test/openapi-expectations.test.ts',
];

/**
 * Files on SQLite that need another server beside it, by what each needs: each need is a project
 * of the system tier, named for it, which a SQLite-only run (`npx pnpm test:sqlite`) leaves out.
 */
const BESIDE_SQLITE = {
  Redis: ['src/admission/quota.test.ts'],
  Chromium: ['test/docs-page.test.ts', 'test/cors.test.ts'],
  nginx: ['test/behind-nginx-client-address.test.ts', 'test/behind-nginx-over-tls.test.ts'],
} as const;

// Multi-instance files, in the PostgreSQL project only; listed so that a SQLite-only run says it goes without.
leftOutWithout({
  nginx: ['test/multi-instance-behind-nginx.test.ts'],
  HAProxy: ['test/multi-instance-behind-haproxy.test.ts'],
  PgBouncer: ['test/multi-instance-behind-pgbouncer.test.ts'],
});

/** A project of SQLite files named by `include`. Not `extends: true`, which would add the shared include list to this one. */
const onSqlite = (name: string, include: readonly string[]) => ({
  resolve: shared.resolve,
  ssr: shared.ssr,
  test: { ...shared.test, isolate: ISOLATED, testTimeout: 180_000, name, env: { PETSTORE_TEST_ENGINE: 'sqlite' }, include: [...include] },
});

const BESIDE_SQLITE_PROJECTS = (Object.entries(BESIDE_SQLITE) as [ExternalNeed, readonly string[]][]).flatMap(([need, files]) =>
  keptWith(need, files.join(', ')) ? [onSqlite(need.toLowerCase(), files)] : [],
);

/**
 * The contract again on PostgreSQL through Debian's PgBouncer, in each pool mode, with what it ships
 * for everything else (no startup parameter ignored): what a team's pooled address is.
 */
const THROUGH_PGBOUNCER = (['transaction', 'session'] as const).map((mode) => ({
  // As the express project: `extends: true` would add the shared include list to this one.
  resolve: shared.resolve,
  ssr: shared.ssr,
  test: {
    ...shared.test,
    name: `pgbouncer-${mode}`,
    env: { PETSTORE_TEST_ENGINE: 'postgres', PETSTORE_TEST_POOLER: mode },
    include: EXPRESS_MOUNTED,
  },
}));

// The contract suite runs once per engine: on the embedded SQLite default, and on PostgreSQL with
// Redis for shared state, as several instances run in production. The tiers (DEVELOPERS.md): unit
// is the `unit` project; contract `sqlite`, `load` and `express`; system the rest, each named for
// what it needs.
export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // Many tests start the service or a CLI as a process of their own, some several times; with
      // lint, type checks and the other packages' tests on the same two cores, a few of those take
      // longer than the shared 20 s without anything being wrong.
      // Beside two processes spinning on both cores, four files at once, each process here gets a
      // sixth of a core: keys-cli's tests that run `npx pnpm keys` three times passed 60 s. A bound
      // against a hang, not a speed target.
      testTimeout: 180_000,
      // Tests that start the service or a CLI as a process run it built (test/support/processes.ts).
      globalSetup: ['test/support/build.ts'],
      isolate: ISOLATED,
      // Twice as many files at once as there are cores (vitest's own default is one fewer than the
      // cores: one file at a time on two). Most of a file's time is waiting on what it started, a
      // service or CLI in a process of its own, a timeout it proves, a client it plays; no two
      // files share a port, a database file, a Redis or a folder (PostgreSQL's files share its
      // connections, and run one at a time below).
      maxWorkers: '200%',
      projects: [
        onSqlite('unit', UNIT),
        {
          extends: true,
          // Several instances share a database only on PostgreSQL.
          test: {
            name: 'sqlite',
            env: { PETSTORE_TEST_ENGINE: 'sqlite' },
            exclude: ['test/multi-instance*.test.ts', ...LOADING, ...UNIT, ...Object.values(BESIDE_SQLITE).flat(), '**/node_modules/**'],
          },
        },
        ...BESIDE_SQLITE_PROJECTS,
        {
          // Not `extends: true`, which would add the shared include list to this one.
          resolve: shared.resolve,
          ssr: shared.ssr,
          test: {
            ...shared.test,
            isolate: ISOLATED,
            testTimeout: 180_000,
            name: 'load',
            env: { PETSTORE_TEST_ENGINE: 'sqlite' },
            include: LOADING,
            maxWorkers: 1,
            sequence: { groupOrder: 1 },
          },
        },
        ...(keptWith('PostgreSQL', 'the postgres, pgbouncer-transaction and pgbouncer-session projects')
          ? [
              {
                extends: true as const,
                test: {
                  name: 'postgres',
                  env: { PETSTORE_TEST_ENGINE: 'postgres' },
                  // One file at a time: the files share PostgreSQL's connections (100 by default),
                  // and one multi-instance file holds half of them.
                  maxWorkers: 1,
                  exclude: [...ENGINE_INDEPENDENT, ...UNIT, ...LOADING, '**/node_modules/**'],
                },
              },
              ...(keptWith('PgBouncer', 'the pgbouncer projects') ? THROUGH_PGBOUNCER : []),
            ]
          : []),
        {
          // The REST and tRPC contract again, with the handlers mounted as middleware in a bare
          // Express 5 app (`app.use(petstore.middleware)`), as a host application would. Not
          // `extends: true`, which would add the shared include list to this one.
          resolve: shared.resolve,
          ssr: shared.ssr,
          test: {
            ...shared.test,
            isolate: ISOLATED,
            name: 'express',
            env: { PETSTORE_TEST_ENGINE: 'sqlite', PETSTORE_TEST_MOUNT: 'express' },
            include: EXPRESS_MOUNTED,
          },
        },
      ],
    },
  }),
);
