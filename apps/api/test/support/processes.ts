import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const API_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

// A child gets its storage from the test alone, never from the shell that started the tests.
const STORAGE_VARIABLES = ['PETSTORE_DB', 'DATABASE_URL', 'REDIS_URL', 'REDIS_KEY_PREFIX'];
const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !STORAGE_VARIABLES.includes(name)));
// Load shedding is off unless a test turns it on: a whole suite on two cores starves a child of
// CPU in a way no real overload looks like, and test/overload.test.ts covers the behaviour.
const childEnvironment = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...inherited, OVERLOAD_DELAY_MS: '0', ...env });

export const spawnCommand = (command: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd = API_ROOT) =>
  spawn(command, args, { cwd, env: childEnvironment(env), stdio: ['ignore', 'pipe', 'pipe'] });

/** Where the build puts an entry point's JavaScript: `src/main.ts` runs as `dist/main.js`. */
export const builtEntry = (entry: string) => entry.replace(/^src\/(.*)\.ts$/, 'dist/$1.js');

/**
 * Runs one of the service's entry points (`src/main.ts`, `src/cli/keys.ts`) as built, the way
 * `npx pnpm start` and `npx pnpm keys` run them: the suite's global set-up (build.ts) has built the
 * sources as they are, so no process compiles them again on its way in.
 */
export const spawnEntry = (entry: string, args: string[], env: NodeJS.ProcessEnv) =>
  spawnCommand(process.execPath, [builtEntry(entry), ...args], env);

export { type Finished, collect, waitForOutput } from '../../src/testing/child-output.js';
