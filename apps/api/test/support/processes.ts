import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Readable } from 'node:stream';

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

/** Runs one of the service's TypeScript entry points the way `pnpm dev` and `pnpm keys` do. */
export const spawnEntry = (entry: string, args: string[], env: NodeJS.ProcessEnv) =>
  spawnCommand(process.execPath, ['--import', 'tsx', '--conditions=petstore-source', entry, ...args], env);

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export const collect = async (child: ChildProcessByStdio<null, Readable, Readable>): Promise<Finished> => {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
};

/** Resolves with everything printed so far once `pattern` appears on stdout. */
export const waitForOutput = (child: ChildProcessByStdio<null, Readable, Readable>, pattern: RegExp) =>
  new Promise<string>((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        child.stdout.off('data', onData);
        resolve(seen);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      reject(new Error(`exited with ${String(code)} before printing ${String(pattern)}:\n${seen}`));
    });
  });
