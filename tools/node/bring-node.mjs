// Runs after every `pnpm install` of the workspace (the root's `postinstall`). The service needs the
// Node its `engines` names; a machine whose own Node (the first on its PATH outside this checkout's
// node_modules/.bin) is older (Node 20, past its end of life, is
// what some machines still have) gets the recommended one, Node's official build as the npm
// registry serves it, checked against the integrity its lockfile pins, and linked as
// node_modules/.bin/node. pnpm's own launcher in node_modules/.bin runs on that node when it is
// there, and puts node_modules/.bin first on PATH for every script, so each `npx pnpm …` of this
// checkout then runs on it; a later install finds that build installed and reuses it. On a machine
// with a Node that is new enough, the link is removed and that Node runs everything.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, lstatSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { basename, delimiter, dirname, join, relative } from 'node:path';
import versions from './versions.cjs';

const { ROOT, broughtBuild, isAtLeast, requiredVersion } = versions;
const LINK = join(ROOT, 'node_modules', '.bin', 'node');

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

const isLink = (path) => {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
};

/**
 * The version of the machine's own Node: the first on PATH outside this checkout's node_modules/.bin
 * folders. This script may itself run on the Node it brought (pnpm puts node_modules/.bin first),
 * which says nothing of the machine's; a Node build put on PATH from elsewhere in the checkout (CI's
 * tools/node/22) is the one the caller chose, and counts.
 */
const machineNodeVersion = () => {
  const brought = (folder) => {
    try {
      return basename(folder) === '.bin' && realpathSync(folder).startsWith(realpathSync(ROOT));
    } catch {
      return true;
    }
  };
  for (const folder of (process.env.PATH ?? '').split(delimiter)) {
    if (folder === '' || brought(folder)) continue;
    try {
      accessSync(join(folder, 'node'), constants.X_OK);
    } catch {
      continue;
    }
    return execFileSync(join(folder, 'node'), ['--version'], { encoding: 'utf8' }).trim();
  }
  return process.version;
};

const required = requiredVersion();
const requiredText = required.join('.');
const machine = machineNodeVersion();
if (isAtLeast(machine, required)) {
  if (isLink(LINK)) rmSync(LINK);
  process.exit(0);
}

const { name: build, version, folder: RECOMMENDED } = broughtBuild();
if (version === undefined) {
  console.error(`Petstore needs Node ${requiredText} or later; this machine runs ${machine}. The npm registry has no official build for ${process.platform}-${process.arch} to bring: install Node 24 and run the install again.`);
  process.exit(1);
}

/**
 * Whether the build the lockfile pins is the one installed: npm ci checked its integrity when it
 * installed it, and keeps what it installed in its hidden lockfile. An install that finds it there
 * reuses it rather than unpack the same build again, most of a second install's time
 * (docs/decisions/2026-11-28-a-contributors-loop.md).
 */
const pinnedIsInstalled = () => {
  const key = `node_modules/${build}`;
  try {
    const pinned = readJson(join(RECOMMENDED, 'package-lock.json')).packages[key];
    const installed = readJson(join(RECOMMENDED, 'node_modules', '.package-lock.json')).packages[key];
    accessSync(join(RECOMMENDED, key, 'bin', 'node'), constants.X_OK);
    return pinned.version === installed.version && pinned.integrity === installed.integrity;
  } catch {
    return false;
  }
};

const binary = join(RECOMMENDED, 'node_modules', build, 'bin', 'node');
const target = relative(dirname(LINK), binary);
const reused = pinnedIsInstalled();
if (!reused) {
  // npm's own variables from pnpm's run would change what npm ci does; the registry and cache stay.
  const KEPT = new Set(['npm_config_registry', 'npm_config_cache', 'npm_config_userconfig']);
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_') || KEPT.has(name.toLowerCase())));
  execFileSync('npm', ['ci', '--prefix', RECOMMENDED, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: ['ignore', 'inherit', 'inherit'], env });
}
if (reused && isLink(LINK) && readlinkSync(LINK) === target) process.exit(0);
if (isLink(LINK)) rmSync(LINK);
symlinkSync(target, LINK);
const brought = execFileSync(LINK, ['--version'], { encoding: 'utf8' }).trim();
console.log(
  `This machine runs Node ${machine}; Petstore needs ${requiredText} or later. Node ${brought} is now in ${relative(ROOT, dirname(LINK))}, from the npm registry (${build}@${version}), and every \`npx pnpm …\` of this checkout runs on it.`,
);
