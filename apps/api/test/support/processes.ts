import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const API_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

// A child gets its storage from the test alone, never from the shell that started the tests.
const STORAGE_VARIABLES = ['PETSTORE_DB', 'DATABASE_URL', 'REDIS_URL', 'REDIS_KEY_PREFIX'];
const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !STORAGE_VARIABLES.includes(name)));
// Load shedding is on, as it ships: a whole suite on two cores starves a child of CPU, which the
// service must not mistake for its own overload (front-door/overload.ts).
const childEnvironment = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...inherited, ...env });

export const spawnCommand = (command: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd = API_ROOT) =>
  spawn(command, args, { cwd, env: childEnvironment(env), stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * The V8 flags `npx pnpm start` runs the service with (its heap caps), read from the script
 * itself: a bound on the process's memory holds only for the process as it is started.
 */
export const START_FLAGS: string[] = (() => {
  const { scripts } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  return scripts.start.split(' ').filter((word) => word.startsWith('--'));
})();

/** Where the build puts an entry point's JavaScript: `src/main.ts` runs as `dist/main.js`. */
export const builtEntry = (entry: string) => entry.replace(/^src\/(.*)\.ts$/, 'dist/$1.js');

/**
 * Runs one of the service's entry points (`src/main.ts`, `src/cli/keys.ts`) as built, the way
 * `npx pnpm start` and `npx pnpm keys` run them: the suite's global set-up (build.ts) has built the
 * sources as they are, so no process compiles them again on its way in.
 */
export const spawnEntry = (entry: string, args: string[], env: NodeJS.ProcessEnv, nodeFlags: string[] = []) =>
  spawnCommand(process.execPath, [...nodeFlags, builtEntry(entry), ...args], env);

export { collect, waitForOutput } from '../../src/testing/child-output.js';

/** Whether the process `pid` still runs (signal 0 only asks). */
export const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
