import { once } from 'node:events';
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Everything a child prints, once it has ended, with its exit code. */
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
