import { defineConfig } from 'vitest/config';
import { keptWith } from '../../packages/core/src/testing/sqlite-only.js';

const test = {
  testTimeout: 60_000,
  // The app is served by Vite's dev server, which compiles each module when the page first asks
  // for it: on two busy cores, a page's first answer can take seconds.
  expect: { poll: { timeout: 15_000 } },
  hookTimeout: 120_000,
};

const CHROMIUM = ['test/app.test.ts'];

const project = (name: string, include: string[], exclude: string[] = []) => ({
  resolve: { conditions: ['petstore-source'] },
  ssr: { resolve: { conditions: ['petstore-source'] } },
  test: { ...test, name, include, exclude: [...exclude, '**/node_modules/**'] },
});

/** The tiers (DEVELOPERS.md): `unit` builds the app and needs nothing; `chromium` tests it in a browser. */
export default defineConfig({
  test: {
    projects: [
      project('unit', ['test/**/*.test.ts'], CHROMIUM),
      // A SQLite-only run has no browser.
      ...(keptWith('Chromium', CHROMIUM.join(', ')) ? [project('chromium', CHROMIUM)] : []),
    ],
  },
});
