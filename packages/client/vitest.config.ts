import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';

// Type tests (`*.test-d.ts`) are compiled by vitest's typecheck mode, beside the tests that run.
export default mergeConfig(
  shared,
  defineConfig({ test: { typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' } } }),
);
