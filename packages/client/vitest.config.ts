import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.js';
import { leftOutWithout } from '../core/src/testing/sqlite-only.js';

/**
 * The tiers (DEVELOPERS.md): `unit` needs nothing (the type tests, `*.test-d.ts`, are compiled by
 * vitest's typecheck mode); `sqlite` starts the service on SQLite, or packs and installs the
 * package; `nginx` puts the service behind Debian's nginx.
 */
const UNIT = ['src/retry/**/*.test.ts', 'src/generated/**/*.test.ts'];
const NGINX = ['test/behind-a-path-prefix.test.ts'];

// Not `extends: true`, which would add the shared include list to each project's.
const project = (name: string, test: object) => ({ resolve: shared.resolve, ssr: shared.ssr, test: { ...shared.test, ...LONGER, name, ...test } });

// Most of these tests wait on what they start (the service, npm, tsc, a proxy); in `check` they
// share two cores with the API's suite, so their bounds are against a hang, as the API's are,
// not the shared 20 s.
const LONGER = { testTimeout: 120_000, hookTimeout: 120_000 };

const nginx = NGINX.filter((file) => !leftOutWithout({ nginx: NGINX }).includes(file));

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      ...LONGER,
      projects: [
        project('unit', { include: UNIT, typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' } }),
        project('sqlite', { exclude: [...UNIT, ...NGINX, '**/node_modules/**'] }),
        ...(nginx.length > 0 ? [project('nginx', { include: nginx })] : []),
      ],
    },
  }),
);
