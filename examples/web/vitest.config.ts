import { defineConfig } from 'vitest/config';
import { isSqliteOnlyRun, leftOutWithout } from '../../packages/core/src/testing/sqlite-only.js';

export default defineConfig({
  resolve: { conditions: ['petstore-source'] },
  ssr: { resolve: { conditions: ['petstore-source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    // The app is tested in a browser only; a SQLite-only run has none, so nothing is left to run.
    exclude: [...leftOutWithout({ Chromium: ['test/app.test.ts'] }), '**/node_modules/**'],
    passWithNoTests: isSqliteOnlyRun(),
    testTimeout: 60_000,
    // The app is served by Vite's dev server, which compiles each module when the page first asks
    // for it: on two busy cores, a page's first answer can take seconds.
    expect: { poll: { timeout: 15_000 } },
    hookTimeout: 120_000,
  },
});
