import { defineConfig } from 'vitest/config';

/**
 * Workspace packages resolve to their TypeScript sources through the `petstore-source` export
 * condition, so tests never run against a stale build.
 */
export default defineConfig({
  resolve: { conditions: ['petstore-source'] },
  ssr: { resolve: { conditions: ['petstore-source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // A worker runs its files one after another in one module graph: zod, tRPC, drizzle and the
    // sources are imported once per worker rather than once per file, which took more of a run's
    // CPU than the tests did. Each file's fixtures still give it its own servers and storage.
    isolate: false,
  },
});
