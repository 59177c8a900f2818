import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Plugin, build } from 'vite';
import { describe, expect, it } from 'vitest';

/*
 * The app as it ships: one copy of tRPC, of the one version its tRPC packages agree on. Its
 * `@trpc/tanstack-react-query` asks for exactly its own version of `@trpc/client` and
 * `@trpc/server`, and the client's sources, read from the workspace, must come to the app's copy
 * (vite.config.ts dedupes them) rather than the workspace's newer one.
 */
const APP_ROOT = fileURLToPath(new URL('..', import.meta.url));
const manifest = (folder: string) =>
  JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string; dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
const tanstack = manifest(realpathSync(join(APP_ROOT, 'node_modules/@trpc/tanstack-react-query')));

describe("the app's tRPC", () => {
  it('is the version its @trpc/tanstack-react-query asks for, in its own dependencies', () => {
    const { dependencies = {} } = manifest(APP_ROOT);
    expect(tanstack.peerDependencies?.['@trpc/client']).toBe(tanstack.version);
    expect(dependencies).toMatchObject({ '@trpc/client': tanstack.version, '@trpc/server': tanstack.version, '@trpc/tanstack-react-query': tanstack.version });
  });

  it('is bundled once, in that version: every tRPC module the build reads is from one copy of each package', async () => {
    const read = new Set<string>();
    const recorder: Plugin = {
      name: 'record-trpc-modules',
      generateBundle() {
        for (const id of this.getModuleIds()) if (id.includes('/@trpc/')) read.add(id);
      },
    };
    await build({ root: APP_ROOT, logLevel: 'warn', plugins: [recorder], build: { write: false } });
    const copies = new Set([...read].map((id) => /\/(\.pnpm\/[^/]+\/node_modules\/@trpc\/[^/]+)\//.exec(id)?.[1] ?? id));
    const versions = [...copies].map((copy) => /@trpc\+([\w-]+)@([\d.]+)/.exec(copy)?.slice(1, 3).join('@'));
    expect(versions.sort()).toEqual([`client@${tanstack.version}`, `server@${tanstack.version}`, `tanstack-react-query@${tanstack.version}`]);
  }, 120_000);
});
