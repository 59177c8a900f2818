import { START_FLAGS, spawnEntry, waitForOutput } from './processes.js';

export interface ServiceInstance {
  url: string;
  /** Its process id, for reading its CPU time and memory from /proc. */
  pid: number;
  /** The key the service printed when it created the database's first one. */
  printedKey: string | undefined;
  /** Everything it printed on stdout so far (its JSON log lines). */
  output(this: void): string;
  /** SIGTERM, then its exit code. */
  stop(this: void): Promise<number | null>;
  /** SIGKILL, as a crash would end it: no request finishes, nothing is flushed. */
  kill(this: void): Promise<void>;
}

/** The service as a process of its own (`src/main.ts`) with `npx pnpm start`'s V8 flags, on a free port, with `env`. */
export const startInstance = async (env: Record<string, string>): Promise<ServiceInstance> => {
  const child = spawnEntry('src/main.ts', [], { PORT: '0', ...env }, START_FLAGS);
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const printed = await waitForOutput(child, /"msg":"Petstore is listening"/);
  return {
    url: `http://127.0.0.1:${/"port":(\d+)/.exec(printed)?.[1] ?? ''}`,
    pid: child.pid ?? 0,
    printedKey: /^ {2}(pst_\S+)$/m.exec(printed)?.[1],
    output: () => stdout,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      child.kill('SIGKILL');
      // Killed, not exited: a process that had already ended would make the test prove nothing.
      if ((await exited) !== null) throw new Error('the service had exited before it was killed');
    },
  };
};

/** Each response's status and how long it took, for a fault's note. */
export class Tally {
  readonly statuses: Record<number, number> = {};
  slowestMs = 0;

  /** Makes the request, reads its body whole, and counts it. */
  async time(request: () => Promise<Response>): Promise<{ response: Response; body: string }> {
    const started = performance.now();
    const response = await request();
    const body = await response.text();
    this.statuses[response.status] = (this.statuses[response.status] ?? 0) + 1;
    this.slowestMs = Math.max(this.slowestMs, Math.round(performance.now() - started));
    return { response, body };
  }

  get serverErrors(): number {
    return Object.entries(this.statuses).reduce((sum, [status, count]) => (Number(status) >= 500 ? sum + count : sum), 0);
  }
}
