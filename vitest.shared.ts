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
  },
});
