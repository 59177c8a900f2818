import { spawn } from 'node:child_process';

/**
 * Spins until its parent is gone: a test that times out never reaches its `stop()`, and a worker
 * ended by the runner would otherwise leave its spinners to every later test.
 */
const SPIN = 'const parent = process.ppid; for (let i = 1; ; i++) if (i % 1e7 === 0 && process.ppid !== parent) process.exit();';

/**
 * Processes that keep every core busy beside the service, as the other tenants of a shared host
 * do: `count` spinning Node processes, stopped by their PIDs when the test is done.
 */
export const startBusyNeighbours = (count = 2) => {
  const spinners = Array.from({ length: count }, () => spawn(process.execPath, ['-e', SPIN], { stdio: 'ignore' }));
  return {
    stop: async () => {
      await Promise.all(
        spinners.map(
          (spinner) =>
            new Promise<void>((resolve) => {
              if (spinner.exitCode !== null || spinner.signalCode !== null) {
                resolve();
                return;
              }
              spinner.once('exit', () => {
                resolve();
              });
              spinner.kill('SIGKILL');
            }),
        ),
      );
    },
  };
};
