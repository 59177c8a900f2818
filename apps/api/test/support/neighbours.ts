import { spawn } from 'node:child_process';

/**
 * Processes that keep every core busy beside the service, as the other tenants of a shared host
 * do: `count` spinning Node processes, stopped by their PIDs when the test is done.
 */
export const startBusyNeighbours = (count = 2) => {
  const spinners = Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
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
