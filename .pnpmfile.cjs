// pnpm loads this file before it reads the workspace, so what it prints comes first in an install.
// Run by a Node older than the one `engines` asks for (Node 20 on some machines), pnpm would open
// the install with `WARN Unsupported engine`, which reads as a failure of the command the README
// says works there. That Node only runs the install: its postinstall (tools/node/bring-node.mjs)
// brings the Node tools/node/24 pins, which then runs everything, so this says so in the project's
// words and has pnpm check every package's engines against the Node that will run it.
const { broughtBuild, isAtLeast, requiredVersion } = require('./tools/node/versions.cjs');

const required = requiredVersion();
const { version } = broughtBuild();
const handled = !isAtLeast(process.version, required) && version !== undefined;
if (handled) {
  console.log(
    `Petstore needs Node ${required.join('.')} or later and pnpm runs on ${process.version} here: this install brings Node ${version} into node_modules/.bin, and every \`npx pnpm …\` of this checkout runs on it.`,
  );
}

/** The scripts an install of a package runs; no other script means anything to the app that installs it. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall'];

/**
 * What a packed or published manifest keeps of the workspace's: no devDependencies (the workspace's
 * own packages among them, which exist nowhere else) and no script but those an install runs
 * (the rest name files the package does not ship). pnpm has already turned `workspace:` into
 * versions and applied `publishConfig`.
 */
const forTheRegistry = (manifest) => {
  const { devDependencies, scripts, ...published } = manifest;
  const kept = Object.entries(scripts ?? {}).filter(([name]) => INSTALL_SCRIPTS.includes(name));
  return kept.length === 0 ? published : { ...published, scripts: Object.fromEntries(kept) };
};

module.exports = {
  hooks: {
    updateConfig: (config) => (handled ? Object.assign(config, { nodeVersion: version }) : config),
    beforePacking: forTheRegistry,
  },
};
