import { type TestServer, startTestServer } from '@petstore/api/testing';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
let server: TestServer;
let installed = '';
/**
 * A fetch from the registry that stalls is given up after 30 s and retried, not after npm's
 * default five minutes, which alone outlasts the set-up's bound.
 */
const NPM_FETCH = ['--fetch-timeout=30000', '--fetch-retries=5', '--fetch-retry-maxtimeout=10000'];
/**
 * npm retries a fetch that stalls or fails on its way, not one whose TLS handshake fails, which the
 * registry's side of the network has been seen to do once and not again: the whole install is
 * tried again, at most this many times.
 */
const INSTALL_ATTEMPTS = 3;
/** The consumer's own TypeScript, the version the workspace builds with. */
const TYPESCRIPT = `typescript@${(await import('typescript')).version}`;
const TSC = join(project, 'node_modules/.bin/tsc');
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

/** `npm install` in the consumer, tried again while it fails, saying why each attempt failed. */
const npmInstall = async (args: readonly string[]) => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run('npm', ['install', ...args], { cwd: project });
    } catch (error) {
      if (attempt >= INSTALL_ATTEMPTS) throw error;
      const said = String((error as { stderr?: unknown }).stderr ?? error).split('\n').filter((line) => line.startsWith('npm error'));
      console.warn(`packed client: npm install failed (attempt ${String(attempt)} of ${String(INSTALL_ATTEMPTS)}): ${said.slice(0, 3).join(' | ')}`);
    }
  }
};

// Packing compiles the client, and the install fetches what npm's cache lacks: minutes on a busy
// machine running the other packages' tests beside this one.
beforeAll(async () => {
  server = await step('service started', () => startTestServer());
  await step('packed', () => run('npx', ['pnpm', 'pack', '--pack-destination', project], { cwd: PACKAGE_DIR }));
  const tarball = readdirSync(project).find((name) => name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('pnpm pack made no tarball');
  cpSync(fileURLToPath(new URL('consumer', import.meta.url)), project, { recursive: true });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await step('installed with npm', () => npmInstall(['--no-audit', '--no-fund', '--prefer-offline', ...NPM_FETCH, `./${tarball}`, TYPESCRIPT]));
  installed = (await run('npm', ['ls', '--all'], { cwd: project })).stdout;
}, 480_000);
afterAll(async () => {
  await server.dispose();
  rmSync(project, { recursive: true, force: true });
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
  }, 60_000);

  it('compiles in a browser app, whose lib (ES2022, DOM) has no Disposable and which has no @types/node', async () => {
    // tRPC's declarations name Disposable; the client's dist/index.d.ts brings in esnext.disposable.
    expect(await compile('tsconfig.browser.json')).toBe('');
  }, 60_000);

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
