// The build of a package whose dist/ Node runs (`npx pnpm start`, the bench, the tests that start the
// service as a process): each TypeScript file of src/ becomes the JavaScript file beside it in dist/,
// through esbuild, one file at a time, types not checked. `npx pnpm typecheck` (and so `check`) checks
// them; a build that checked them too made a first start wait a minute for a check it does not need.
// Run in a package's folder (`node ../../tools/build/transpile.mjs`), or given the packages' folders.
// It writes nothing when dist/ already holds the build of the sources as they are, and replaces each
// file whole (written beside it, then renamed), so the bins and the tests' set-up may call it while
// other processes run that dist/.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const SOURCE = 'src';
const OUT = 'dist';
/** What dist/ was built from: a digest of every source file's name and content. */
const STAMP = join(OUT, 'sources.sha256');

/**
 * The test fixtures a package exports built (an export whose `default` is under dist/testing/, as
 * core's PgBouncer fixture is for the bench), with the files of src/ they import, followed from
 * their `./….js` imports.
 */
const exportedFixtures = (folder) => {
  const { exports = {} } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  const found = new Set();
  const visit = (file) => {
    if (found.has(file)) return;
    found.add(file);
    for (const [, imported] of readFileSync(join(folder, SOURCE, file), 'utf8').matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) {
      visit(posix.normalize(posix.join(posix.dirname(file), `${imported}.ts`)));
    }
  };
  for (const entry of Object.values(exports)) {
    const built = typeof entry === 'object' && entry !== null ? entry.default : undefined;
    if (typeof built === 'string' && built.startsWith(`./${OUT}/testing/`)) visit(built.slice(`./${OUT}/`.length).replace(/\.js$/, '.ts'));
  }
  return found;
};

/**
 * The files the package runs: src/ less the tests (`*.test.ts`, `*.test-d.ts`) and the test fixtures
 * (src/testing), but for those it exports built.
 */
const sourcesOf = (folder) => {
  const runs = readdirSync(join(folder, SOURCE), { recursive: true, encoding: 'utf8' }).filter(
    (file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !/\.test(-d)?\.ts$/.test(file) && !file.startsWith('testing/'),
  );
  return [...new Set([...runs, ...exportedFixtures(folder)])].sort();
};

const digestOf = (folder, files) => {
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update('\0').update(readFileSync(join(folder, SOURCE, file))).update('\0');
  return hash.digest('hex');
};

/** Builds the package in `folder` unless dist/ already holds the build of its sources; says whether it built. */
export const transpile = async (folder) => {
  const files = sourcesOf(folder);
  const digest = digestOf(folder, files);
  const stamp = join(folder, STAMP);
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return false;
  // Loaded only to build: a run that finds dist/ current costs a hash of the sources and no more.
  const { build } = await import('esbuild');
  const { outputFiles } = await build({
    absWorkingDir: folder,
    entryPoints: files.map((file) => join(SOURCE, file)),
    outdir: OUT,
    outbase: SOURCE,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    sourcemap: true,
    logLevel: 'warning',
    write: false,
  });
  for (const { path, contents } of [...outputFiles, { path: stamp, contents: digest }]) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(`${path}.${String(process.pid)}`, contents);
    renameSync(`${path}.${String(process.pid)}`, path);
  }
  return true;
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const folders = process.argv.length > 2 ? process.argv.slice(2) : ['.'];
  for (const folder of folders) await transpile(resolve(folder));
}
