import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { spawnCommand, waitForOutput } from './processes.js';

/** A port nothing listens on now: the system picks it, then it is let go for the caller. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => {
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
  });

export interface OwnRedis {
  url: string;
  /** Kills it at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  /** Starts it again, empty, on the same port. */
  restart(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and commands go unanswered, as a hung server's would. */
  pause(): void;
  resume(): void;
}

const REDIS_BINARY = 'redis-server';

/**
 * A redis-server of the test's own on a free port, without persistence, that the test can kill
 * and restart: the shared Redis other tests use must never be stopped.
 */
export const startOwnRedis = async (): Promise<OwnRedis> => {
  if (spawnSync(REDIS_BINARY, ['--version']).error) {
    throw new Error(`${REDIS_BINARY} is not installed: this test starts and kills a Redis of its own (apt-get install redis-server).`);
  }
  const port = await freePort();
  let child: ReturnType<typeof spawnCommand> | undefined;
  const start = async () => {
    child = spawnCommand(REDIS_BINARY, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
    await waitForOutput(child, /Ready to accept connections/);
  };
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: start,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
  };
};
