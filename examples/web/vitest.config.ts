import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['petstore-source'] },
  ssr: { resolve: { conditions: ['petstore-source'] } },
  test: { include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 },
});
