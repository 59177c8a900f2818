import { type TestServer, startTestServer } from '@petstore/api/testing';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * The package as an app gets it: packed to a tarball, installed with plain npm in a project
 * outside the workspace, compiled by a strict tsc, run against a live service.
 */
const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const SERVER_PACKAGES = /(better-sqlite3|[ /]pg|drizzle|@petstore\/core|@petstore\/api|zod)@/;

const project = mkdtempSync(join(tmpdir(), 'petstore-consumer-'));
const staging = mkdtempSync(join(tmpdir(), 'petstore-consumer-dependencies-'));
let server: TestServer;
let installed = '';
const TSC = join(project, 'node_modules/.bin/tsc');
/**
 * How long tsc may take on the consumer: 13-56 s in runs beside the other suites, past a minute with
 * two processes spinning on both cores as well. A bound against a hang, not a speed target.
 */
const COMPILE_TIMEOUT_MS = 180_000;
/** What tsc says compiling the consumer with one of its tsconfigs: nothing when it compiles. */
const compile = (tsconfig: string) =>
  run(TSC, ['-p', tsconfig], { cwd: project }).then(
    ({ stdout }) => stdout,
    (error: unknown) => (error as { stdout: string }).stdout,
  );

/** Runs one step of the set-up, and says how long it took: on a loaded machine, which one was slow. */
const step = async <T>(name: string, work: () => Promise<T>) => {
  const started = performance.now();
  const result = await work();
  console.info(`packed client: ${name} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
};

/** The folder Node finds `name` in from `from`: pnpm keeps a package's own dependencies beside it. */
const packageFolder = (name: string, from: string): string => {
  for (let folder = from; ; folder = dirname(folder)) {
    const candidate = join(folder, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(folder) === folder) throw new Error(`${name} is not installed where ${from} finds it`);
  }
};

type Manifest = {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

/**
 * The folders of what npm installs with the package at `folder`: its dependencies and the peers they
 * require, and theirs, as the workspace holds them.
 */
const installedWith = (folder: string, found: Map<string, string>): Map<string, string> => {
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
  const requiredPeers = Object.keys(manifest.peerDependencies ?? {}).filter(
    (name) => manifest.peerDependenciesMeta?.[name]?.optional !== true,
  );
  for (const name of [...Object.keys(manifest.dependencies ?? {}), ...requiredPeers]) {
    if (found.has(name)) continue;
    const dependency = packageFolder(name, folder);
    found.set(name, dependency);
    installedWith(dependency, found);
  }
  return found;
};

// Packing compiles the client: minutes on a busy machine running the other packages' tests beside
// this one.
beforeAll(async () => {
  server = await step('service started', () => startTestServer());
  await step('packed', () => run('npx', ['pnpm', 'pack', '--pack-destination', project], { cwd: PACKAGE_DIR }));
  const tarball = readdirSync(project).find((name) => name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('pnpm pack made no tarball');
  cpSync(fileURLToPath(new URL('consumer', import.meta.url)), project, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // What the client brings is packed from the workspace's own copies, beside the consumer's own
  // TypeScript, and installed offline: the test proves the package, not the registry's network.
  // Each is packed from a copy: pnpm's store hard-links files of equal content, which npm would
  // pack as empty links.
  const dependencies = installedWith(PACKAGE_DIR, new Map([['typescript', packageFolder('typescript', PACKAGE_DIR)]]));
  const copies = [...dependencies].map(([name, folder]) => {
    const copy = join(staging, name);
    cpSync(folder, copy, { recursive: true });
    return copy;
  });
  await step('dependencies packed', () =>
    run('npm', ['pack', '--ignore-scripts', '--pack-destination', project, ...copies], { cwd: project }),
  );
  const tarballs = readdirSync(project).filter((name) => name.endsWith('.tgz')).map((name) => `./${name}`);
  await step('installed with npm', () => run('npm', ['install', '--offline', '--no-audit', '--no-fund', ...tarballs], { cwd: project }));
  installed = (await run('npm', ['ls', '--all'], { cwd: project })).stdout;
}, 480_000);
afterAll(async () => {
  await server.dispose();
  rmSync(project, { recursive: true, force: true });
  rmSync(staging, { recursive: true, force: true });
});

describe('the packed client, installed with npm outside the workspace', () => {
  it('brings nothing of the server', () => {
    expect(installed).toContain('@petstore/client@1.0.0');
    expect(installed).toContain('@trpc/client@');
    expect(installed).toContain('openapi-fetch@');
    expect(installed).not.toMatch(SERVER_PACKAGES);
  });

  it('compiles a strict consumer with its own declarations, and rejects a wrong field type', async () => {
    expect(await compile('tsconfig.json')).toBe('');
    expect(await compile('tsconfig.wrong.json')).toMatch(
      /wrong-field-type\.ts\(4,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/,
    );
  }, COMPILE_TIMEOUT_MS);

  it('compiles in a browser app, whose lib (ES2022, DOM) has no Disposable and which has no @types/node', async () => {
    // tRPC's declarations name Disposable; the client's dist/index.d.ts brings in esnext.disposable.
    expect(await compile('tsconfig.browser.json')).toBe('');
  }, COMPILE_TIMEOUT_MS);

  it('runs against a live service', async () => {
    const { stdout } = await run(process.execPath, ['run.mjs', server.url, server.apiKey], { cwd: project });
    const result = JSON.parse(stdout) as Record<string, unknown> & { rex: { id: number } };
    expect(result).toEqual({
      rex: { id: expect.any(Number), name: 'Packed', categoryId: 7, status: 'pending' },
      fetched: result.rex,
      listed: [result.rex.id],
      next: null,
      missing: 'NOT_FOUND',
      restName: 'Packed',
    });
  });
});
