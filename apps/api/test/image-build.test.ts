import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../src/settings/version.js';
import { call } from './support/http.js';
import { REPO_ROOT, collect, spawnCommand, waitForOutput } from './support/processes.js';

// No Docker engine here: the Dockerfile's build stage is run as Docker would run it, command by
// command as written, on a copy of what its `COPY . .` takes (the files .dockerignore leaves),
// in a scratch folder; only the two absolute folders it writes (/build, /service) are moved into
// that folder. What it leaves in /service is then run as the image runs it.

const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
/** From the first FROM to the second: the stage that builds. */
const buildStage = dockerfile.slice(dockerfile.indexOf('\nFROM '), dockerfile.indexOf('\nFROM ', dockerfile.indexOf('\nFROM ') + 1));
/** The commands after `COPY . .`, in order: the build itself. */
const BUILD_COMMANDS = buildStage
  .slice(buildStage.indexOf('COPY . .'))
  .split('\n')
  .filter((line) => line.startsWith('RUN '))
  .map((line) => line.slice('RUN '.length));

/** .dockerignore's patterns, as Docker reads these: `**\/name` anywhere, otherwise a path from the root. */
const ignored = (() => {
  const patterns = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  return (path: string) =>
    patterns.some((pattern) =>
      pattern.startsWith('**/') ? path.split('/').includes(pattern.slice(3)) : path === pattern || path.startsWith(`${pattern}/`),
    );
})();

let scratch: string;
let service: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'petstore-image-'));
  const source = join(scratch, 'src');
  // The build context: the checkout's files, committed or not, less what .dockerignore leaves out.
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\0');
  for (const file of files.filter((path) => path !== '' && !ignored(path) && existsSync(join(REPO_ROOT, path)))) {
    mkdirSync(dirname(join(source, file)), { recursive: true });
    cpSync(join(REPO_ROOT, file), join(source, file));
  }
  // The image's pnpm is `npm install --global pnpm@<version>`: the same version, the workspace's own.
  const tools = join(scratch, 'bin');
  mkdirSync(tools);
  writeFileSync(join(tools, 'pnpm'), `#!/bin/sh\nexec "${process.execPath}" "${join(REPO_ROOT, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs')}" "$@"\n`);
  chmodSync(join(tools, 'pnpm'), 0o755);
  service = join(scratch, 'service');
  for (const command of BUILD_COMMANDS) {
    const moved = command.replaceAll(' /build', ` ${join(scratch, 'build')}`).replaceAll(' /service', ` ${service}`);
    // A bound on each command: a synchronous child that stalls (a registry request that never
    // ends) would otherwise hold the worker past every vitest timeout, and the run with it.
    execFileSync('sh', ['-c', moved], {
      cwd: source,
      stdio: 'pipe',
      timeout: 120_000,
      killSignal: 'SIGKILL',
      // Offline, with no registry metadata at hand: the build takes every version from the lockfile
      // and every package from the store this checkout installed, and fails if it would resolve.
      env: {
        ...process.env,
        PATH: `${tools}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        npm_config_yes: 'true',
        npm_config_offline: 'true',
        npm_config_cache_dir: join(scratch, 'cache'),
      },
    });
  }
}, 300_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** A node_modules folder's packages, scopes opened. */
const packagesIn = (folder: string) =>
  readdirSync(folder)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(folder, name)).map((inner) => `${name}/${inner}`) : [name]));

describe("the Dockerfile's build, run as Docker would", () => {
  it('uses the pnpm the workspace pins', () => {
    const { packageManager } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { packageManager: string };
    expect(buildStage).toContain(`npm install --global ${packageManager}`);
    expect(BUILD_COMMANDS.length).toBeGreaterThan(0);
  });

  it('installs nothing of the workspace but esbuild to build, and the service only its production dependencies', () => {
    expect(packagesIn(join(scratch, 'build', 'node_modules'))).toEqual(['esbuild']);
    expect(existsSync(join(scratch, 'src', 'node_modules', '.pnpm'))).toBe(false);
    const deployed = packagesIn(join(service, 'node_modules'));
    const { dependencies } = JSON.parse(readFileSync(join(REPO_ROOT, 'apps', 'api', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(deployed.sort()).toEqual(Object.keys(dependencies).sort());
    const everything = readdirSync(join(service, 'node_modules', '.pnpm'));
    for (const tool of ['vite@', 'vitest@', 'playwright-core@', 'esbuild@', 'tsx@', 'drizzle-kit@', '@stoplight+spectral-cli@']) {
      expect(everything.filter((name) => name.startsWith(tool))).toEqual([]);
    }
  });

  it('leaves a service that says what it is, whose commands name themselves as the image runs them', async () => {
    expect(execFileSync(process.execPath, ['dist/main.js', '--version'], { cwd: service, encoding: 'utf8' })).toBe(`Petstore ${VERSION}\n`);
    const keysHelp = await collect(spawnCommand(process.execPath, ['dist/cli/keys.js', 'help'], {}, service));
    expect(keysHelp.stdout).toMatch(/^Usage:\n {2}node dist\/cli\/keys\.js create <name>/);
    const backupHelp = await collect(spawnCommand(process.execPath, ['dist/cli/backup.js', '--help'], {}, service));
    expect(backupHelp.stdout).toMatch(/^Usage:\n {2}node dist\/cli\/backup\.js <file>/);
  });

  it("serves when started with the image's command", async () => {
    const cmd = JSON.parse(/^CMD (.*)$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
    expect(cmd[0]).toBe('node');
    const child = spawnCommand(process.execPath, cmd.slice(1), { PORT: '0', HOST: '127.0.0.1', PETSTORE_DB: join(scratch, 'petstore.db'), FIRST_API_KEY: 'hint' }, service);
    try {
      const printed = await waitForOutput(child, /"msg":"Petstore is listening"/);
      const url = `http://127.0.0.1:${/"port":(\d+)/.exec(printed)?.[1] ?? ''}`;
      expect(await (await call({ url, apiKey: '' }, '/healthz')).json()).toEqual({ status: 'ok', version: VERSION });
    } finally {
      child.kill('SIGTERM');
      await collect(child);
    }
  });
});
