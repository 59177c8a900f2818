import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { acceptsConnections } from '@petstore/core/testing';
import { spawnCommand } from './processes.js';

export interface ProxyProcess {
  /** Everything it printed so far. */
  printed(this: void): string;
  /** Stops it (SIGTERM) and deletes its folder. */
  dispose(this: void): Promise<void>;
}

/**
 * A proxy of Debian's (nginx, HAProxy) in the foreground, run from `folder` with `args`, once it
 * accepts connections on `port`; if it does not within 10 s, it is killed and the test told what it printed.
 */
export const startProxyProcess = async (binary: string, args: string[], folder: string, port: number): Promise<ProxyProcess> => {
  const child = spawnCommand(binary, args, {}, folder);
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
  const deadline = Date.now() + 10_000;
  while (!(await acceptsConnections(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(folder, { recursive: true, force: true });
      throw new Error(`${binary} did not start:\n${printed}`);
    }
    await sleep(20);
  }
  return {
    printed: () => printed,
    dispose: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
};
