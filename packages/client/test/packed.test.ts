import { type TestServer, startTestServer } from '@petstore/api/testing';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRegistry, startLocalRegistry } from './support/local-registry.js';

/*
 * The package as an app gets it: packed to a tarball, installed outside the workspace by the
 * commands docs/typed-client.md gives, pasted as they are into a fresh app and into an app already
 * on tRPC, compiled by that app's tsc and run against a live service. npm fetches what the client
 * brings from a stand-in registry that holds the workspace's own copies: the test proves the
 * package and its page, not the registry's network.
 */
const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const PAGE = join(PACKAGE_DIR, '../../docs/typed-client.md');
const SERVER_PACKAGES = /(better-sqlite3|[ /]pg|drizzle|@petstore\/core|@petstore\/api|zod)@/;

const scratch = mkdtempSync(join(tmpdir(), 'petstore-consumer-'));
/** An app made by the page's commands alone. */
const fresh = join(scratch, 'fresh');
/** An app on the oldest tRPC the client's peer range takes, before it installs the client as the page says. */
const onTrpc = join(scratch, 'on-trpc');
/** A strict app inside the fresh one, compiled by tsconfigs of its own (consumer/). */
const strict = join(fresh, 'strict');
let server: TestServer;
let registry: LocalRegistry;
let tarball = '';

/** Runs one step of the set-up, and says how long it took: on a loaded machine, which one was slow. */
const step = async <T>(name: string, work: () => Promise<T>) => {
  const started = performance.now();
  const result = await work();
  console.info(`packed client: ${name} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
};

/** The section of the page on installing the client elsewhere: its commands, its index.ts, and how to run it. */
const installingSection = () => {
  const page = readFileSync(PAGE, 'utf8');
  const start = page.indexOf('## Installing it in another project');
  const section = page.slice(start, page.indexOf('\n## ', start + 1));
  const [setUp, script, running] = [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map(([, language = '', text = '']) => ({ language, text }));
  if (start < 0 || setUp?.language !== 'text' || script?.language !== 'ts' || running?.language !== 'text') {
    throw new Error('docs/typed-client.md: "Installing it in another project" should hold a text block of commands, index.ts, then a text block that runs it');
  }
  return { setUp: setUp.text, script: script.text, running: running.text };
};
const page = installingSection();

/**
 * A fresh terminal: the Node this test runs on and the machine's own tools (npm among them), no
 * workspace bin, none of the npm settings pnpm hands its scripts; npm's registry is the stand-in,
 * with a cache and a user config of its own, neither audit nor update checks sent anywhere.
 */
const terminal = (): NodeJS.ProcessEnv => {
  const machine = (process.env.PATH ?? '').split(delimiter).filter((folder) => folder.startsWith('/') && !folder.includes('node_modules'));
  return {
    PATH: [dirname(process.execPath), ...machine].join(delimiter),
    HOME: process.env.HOME,
    npm_config_registry: registry.url,
    npm_config_cache: join(scratch, 'npm-cache'),
    npm_config_userconfig: join(scratch, 'npmrc'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
};

/** Runs shell commands as a reader pastes them into a terminal in `folder`; a failing one fails the test with what it printed. */
const paste = async (commands: string, folder: string, variables: NodeJS.ProcessEnv = {}) => {
  try {
    return (await run('bash', ['-ec', commands], { cwd: folder, env: { ...terminal(), ...variables } })).stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout: string; stderr: string };
    throw new Error(`In ${folder}:\n${commands}\nfailed:\n${stdout}\n${stderr}`, { cause: error });
  }
};

/** What tsc says compiling in `folder` with `args`: nothing when it compiles. */
const compile = (folder: string, args: string[]) =>
  run(join(folder, 'node_modules/.bin/tsc'), args, { cwd: folder }).then(
    ({ stdout }) => stdout,
    (error: unknown) => (error as { stdout: string }).stdout,
  );

/** The folder Node finds `name` in from `from`: pnpm keeps a package's own dependencies beside it. */
const packageFolder = (name: string, from: string): string => {
  for (let folder = from; ; folder = dirname(folder)) {
    const candidate = join(folder, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(folder) === folder) throw new Error(`${name} is not installed where ${from} finds it`);
  }
};

type Manifest = {
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
const manifestOf = (folder: string) => JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;

/**
 * The folders of what npm installs with the package at `folder`: its dependencies and the peers they
 * require, and theirs, as the workspace holds them.
 */
const installedWith = (folder: string, found = new Map<string, string>()): Map<string, string> => {
  const manifest = manifestOf(folder);
  const requiredPeers = Object.keys(manifest.peerDependencies ?? {}).filter((name) => manifest.peerDependenciesMeta?.[name]?.optional !== true);
  for (const name of [...Object.keys(manifest.dependencies ?? {}), ...requiredPeers]) {
    if (found.has(name)) continue;
    const dependency = packageFolder(name, folder);
    found.set(name, dependency);
    installedWith(dependency, found);
  }
  return found;
};

/** The oldest tRPC the client's peer range takes (`^11.4.0`), and the workspace's copies of it (trpc-*-floor). */
const trpcFloor = () => {
  const range = manifestOf(PACKAGE_DIR).peerDependencies?.['@trpc/client'] ?? '';
  const version = /^\^(\d+\.\d+\.\d+)$/.exec(range)?.[1];
  const folders = ['trpc-client-floor', 'trpc-server-floor'].map((alias) => packageFolder(alias, PACKAGE_DIR));
  for (const folder of folders) {
    if (manifestOf(folder).version !== version) throw new Error(`${folder} is ${manifestOf(folder).version}, but the peer range ${range} starts at ${String(version)}`);
  }
  return { version: version ?? '', folders };
};
const floor = trpcFloor();

/** Each copy of @trpc/client and @trpc/server npm installed in `folder`: its path and version. */
const trpcCopies = async (folder: string) => {
  const { stdout } = await run('npm', ['ls', '@trpc/client', '@trpc/server', '--all', '--parseable', '--long'], { cwd: folder, env: terminal() });
  return [...new Set(stdout.split('\n').filter((line) => line.includes('@trpc/')))].map((line) => {
    const [path = '', nameAndVersion = ''] = line.split(':');
    return { path: path.slice(folder.length), nameAndVersion };
  });
};

// Packing compiles the client: minutes on a busy machine running the other packages' tests beside
// this one.
beforeAll(async () => {
  server = await step('service started', () => startTestServer());
  const packed = join(scratch, 'packed');
  mkdirSync(packed);
  await step('packed', () => run('npx', ['pnpm', 'pack', '--pack-destination', packed], { cwd: PACKAGE_DIR }));
  tarball = join(packed, readdirSync(packed).find((name) => name.endsWith('.tgz')) ?? 'no tarball');

  // What an app fetches for the client and with the page's commands, and the oldest tRPC the
  // client takes. Each is packed from a copy: pnpm's store hard-links files of equal content,
  // which npm would pack as empty links.
  const typesNode = packageFolder('@types/node', PACKAGE_DIR);
  const fetched = new Map([['typescript', packageFolder('typescript', PACKAGE_DIR)], ['@types/node', typesNode]]);
  installedWith(typesNode, installedWith(PACKAGE_DIR, fetched));
  const copies = [...fetched.values(), ...floor.folders].map((folder, index) => {
    const copy = join(scratch, 'copies', String(index));
    cpSync(folder, copy, { recursive: true });
    return copy;
  });
  registry = await step('registry filled', () => startLocalRegistry(copies, packed));

  const setUp = page.setUp.replace(/\S*petstore-client-[\w.*-]+\.tgz/, tarball);
  if (setUp === page.setUp) throw new Error(`the page's commands install no petstore-client tarball:\n${page.setUp}`);
  for (const app of [fresh, onTrpc]) mkdirSync(app);
  await step('fresh app set up as the page says', () => paste(setUp, fresh));
  await step('app on tRPC set up', () =>
    paste(`npm init -y\nnpm install @trpc/client@${floor.version} @trpc/server@${floor.version}\n${setUp}`, onTrpc),
  );
  for (const app of [fresh, onTrpc]) writeFileSync(join(app, 'index.ts'), page.script);
  cpSync(fileURLToPath(new URL('consumer', import.meta.url)), strict, { recursive: true, filter: (source) => !source.endsWith('wrong-field-type.ts') });
}, 480_000);
afterAll(async () => {
  await server.dispose();
  await registry.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the packed client', () => {
  it('holds its compiled code and declarations, its README and license, and every file its exports name', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').filter((line) => line !== '').map((line) => line.replace(/^package\//, ''));
    expect(files.filter((file) => !/^dist\/.+\.(?:js|d\.ts)$/.test(file)).sort()).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', 'package.json']);
    expect(files.filter((file) => /test/.test(file))).toEqual([]);
    const { stdout: manifest } = await run('tar', ['-xzOf', tarball, 'package/package.json']);
    const targets = JSON.stringify((JSON.parse(manifest) as { exports: unknown }).exports).match(/"\.\/[^"]+"/g) ?? [];
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect(files, target).toContain(target.slice(3, -1));
  });
});

describe('the packed client, as the registry would take it', () => {
  const packedManifest = async () => JSON.parse((await run('tar', ['-xzOf', tarball, 'package/package.json'])).stdout) as Record<string, unknown>;
  const bin = (name: string) => join(PACKAGE_DIR, 'node_modules/.bin', name);

  it('says what it is, and keeps nothing of the workspace: no devDependencies, no scripts, no workspace: ranges', async () => {
    const manifest = await packedManifest();
    expect(manifest).toMatchObject({ name: '@petstore/client', license: 'MIT', type: 'module', repository: { type: 'git', directory: 'packages/client' } });
    expect(manifest.version).toMatch(/^0\.\d+\.\d+$/);
    expect(manifest).not.toHaveProperty('private');
    expect(manifest).not.toHaveProperty('devDependencies');
    expect(manifest).not.toHaveProperty('scripts');
    expect(JSON.stringify(manifest)).not.toMatch(/workspace:|petstore-source|@petstore\/(?:api|core)/);
  });

  it('passes publint and arethetypeswrong (as an ES module only), which report nothing', async () => {
    const publint = await run(bin('publint'), ['run', '--strict', tarball]);
    expect(publint.stdout).toMatch(/All good!/);
    // The esm-only profile leaves out the two ways of loading a package an ES module alone cannot
    // serve (node10, require from CommonJS): docs/decisions/2026-11-28-client-installs-by-its-docs.md.
    const attw = await run(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'json']);
    const { analysis } = JSON.parse(attw.stdout) as { analysis: { problems: { resolutionKind?: string }[] } };
    expect(analysis.problems.filter(({ resolutionKind }) => resolutionKind !== 'node10' && resolutionKind !== 'node16-cjs')).toEqual([]);
  });

  it('passes `npm publish --dry-run`', async () => {
    const { stdout, stderr } = await run('npm', ['publish', '--dry-run', tarball], { cwd: scratch, env: terminal() });
    const printed = `${stdout}${stderr}`;
    expect(printed).toMatch(/^\+ @petstore\/client@0\.\d+\.\d+$/m);
    // A dry run needs no login, and says so; nothing else may be a warning.
    const warnings = printed.split('\n').filter((line) => /^npm (?:warn|error)/i.test(line));
    expect(warnings.filter((line) => !/requires you to be logged in .*\(dry-run\)$/.test(line))).toEqual([]);
  });

  it("links its README to the repository by absolute addresses, each to a file the repository holds", async () => {
    const readme = (await run('tar', ['-xzOf', tarball, 'package/README.md'])).stdout;
    const { url } = (await packedManifest()).repository as { url: string };
    const repository = url.replace(/^git\+/, '').replace(/\.git$/, '');
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map(([, link = '']) => link);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      expect(link, "a link the registry's page can follow").toMatch(/^https:\/\//);
      const inRepository = new RegExp(`^${repository.replace(/[.]/g, '\\.')}/blob/main/([^#]+)`).exec(link)?.[1];
      if (inRepository !== undefined) expect(existsSync(join(PACKAGE_DIR, '../..', inRepository)), link).toBe(true);
      else expect(link, 'the repository itself').toMatch(new RegExp(`^${repository.replace(/[.]/g, '\\.')}(?:#|$)`));
    }
  });
});

/**
 * How long a test that runs tsc on an app may take: 13-56 s in runs beside the other suites, past a
 * minute with two processes spinning on both cores as well. A bound against a hang, not a speed target.
 */
const COMPILE_TIMEOUT_MS = 180_000;

describe('an app that installs the packed client as docs/typed-client.md says', () => {
  it('brings nothing of the server', async () => {
    const { stdout } = await run('npm', ['ls', '--all'], { cwd: fresh, env: terminal() });
    expect(stdout).toContain(`@petstore/client@${manifestOf(PACKAGE_DIR).version}`);
    expect(stdout).toContain('@trpc/client@');
    expect(stdout).toContain('openapi-fetch@');
    expect(stdout).not.toMatch(SERVER_PACKAGES);
  });

  it.for<[string, string]>([
    ['a fresh app', fresh],
    ['an app already on the oldest tRPC the client takes', onTrpc],
  ])("compiles and runs the page's index.ts in %s, against a live service", { timeout: COMPILE_TIMEOUT_MS }, async ([, app]) => {
    const printed = await paste(page.running, app, { KEY: server.apiKey, PETSTORE_URL: server.url });
    expect(printed).toMatch(/^added Rex as \d+; \d+ available on the first page$/m);
    // The REST 400's list of the fields that failed validation, as console.log prints it.
    expect(printed).toMatch(/path: \[ 'name' \][\s\S]*path: \[ 'categoryId' \]/);
  });

  it('keeps one copy of tRPC in an app already on it: the app’s own', async () => {
    expect(await trpcCopies(onTrpc)).toEqual([
      { path: '/node_modules/@trpc/client', nameAndVersion: `@trpc/client@${floor.version}` },
      { path: '/node_modules/@trpc/server', nameAndVersion: `@trpc/server@${floor.version}` },
    ]);
    expect(await trpcCopies(fresh)).toEqual([
      { path: '/node_modules/@trpc/client', nameAndVersion: expect.stringMatching(/^@trpc\/client@11\./) },
      { path: '/node_modules/@trpc/server', nameAndVersion: expect.stringMatching(/^@trpc\/server@11\./) },
    ]);
  });

  it.for<[string, string]>([
    ['a fresh app', fresh],
    ['an app on the oldest tRPC the client takes', onTrpc],
  ])('rejects a wrong field type in %s: the types are the router’s, not any', { timeout: COMPILE_TIMEOUT_MS }, async ([, app]) => {
    const wrong = join(app, 'wrong-field-type.ts');
    cpSync(fileURLToPath(new URL('consumer/wrong-field-type.ts', import.meta.url)), wrong);
    try {
      expect(await compile(app, ['--noEmit'])).toMatch(/^wrong-field-type\.ts\(4,\d+\): error TS2322: Type 'string' is not assignable to type 'number'\.\n$/);
    } finally {
      rmSync(wrong);
    }
  });

  it('compiles a strict consumer with its own declarations (skipLibCheck false, exactOptionalPropertyTypes)', async () => {
    expect(await compile(fresh, ['-p', 'strict/tsconfig.strict.json'])).toBe('');
  }, COMPILE_TIMEOUT_MS);

  it('compiles in a browser app, whose lib (ES2022, DOM) has no Disposable and which has no @types/node', async () => {
    // tRPC's declarations name Disposable; the client's dist/index.d.ts brings in esnext.disposable.
    expect(await compile(fresh, ['-p', 'strict/tsconfig.browser.json'])).toBe('');
  }, COMPILE_TIMEOUT_MS);

  it('runs the strict consumer against a live service', async () => {
    await compile(fresh, ['-p', 'strict/tsconfig.strict.json']);
    const { stdout } = await run(process.execPath, ['run.mjs', server.url, server.apiKey], { cwd: strict });
    const result = JSON.parse(stdout) as Record<string, unknown> & { rex: { id: number } };
    expect(result).toEqual({
      rex: { id: expect.any(Number), name: 'Packed', categoryId: 7, status: 'pending' },
      fetched: result.rex,
      listed: [result.rex.id],
      next: null,
      missing: 'NOT_FOUND',
      restName: 'Packed',
    });
  }, COMPILE_TIMEOUT_MS);
});
