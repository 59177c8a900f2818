import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';
import { leftOutWithout } from '../core/src/testing/sqlite-only.js';

// Type tests (`*.test-d.ts`) are compiled by vitest's typecheck mode, beside the tests that run.
// Most of these tests wait on what they start (the service, npm, tsc, a proxy); in `check` they
// share two cores with the API's suite, so their bounds are against a hang, as the API's are,
// not the shared 20 s.
export default mergeConfig(
  shared,
  defineConfig({
    test: {
      testTimeout: 120_000,
      hookTimeout: 120_000,
      typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
      exclude: [...leftOutWithout({ nginx: ['test/behind-a-path-prefix.test.ts'] }), '**/node_modules/**'],
    },
  }),
);
