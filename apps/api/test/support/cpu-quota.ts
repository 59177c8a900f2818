import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where cgroup v1's cpu controller is mounted, as on this project's machines. */
const CPU_CONTROLLER = '/sys/fs/cgroup/cpu';

/** Why a CPU quota cannot be set here, or undefined when it can (cgroup v1's cpu controller, as root). */
export const cpuQuotaUnavailable = (): string | undefined => {
  if (process.getuid?.() !== 0) return 'setting a CPU quota needs root';
  if (!existsSync(join(CPU_CONTROLLER, 'cpu.cfs_quota_us'))) return `no cgroup v1 cpu controller at ${CPU_CONTROLLER}`;
  return undefined;
};

/**
 * Runs process `pid` under a CPU quota of `quotaMs` in every `periodMs`, as Kubernetes enforces
 * `resources.limits.cpu` (a CFS quota: `500m` is 50 ms per 100 ms), in a cgroup of the test's own.
 * `release` moves the process back and removes the group.
 */
export const limitCpu = (pid: number, { quotaMs, periodMs }: { quotaMs: number; periodMs: number }) => {
  const group = join(CPU_CONTROLLER, `petstore-test-${String(process.pid)}-${String(pid)}`);
  mkdirSync(group);
  writeFileSync(join(group, 'cpu.cfs_period_us'), String(periodMs * 1000));
  writeFileSync(join(group, 'cpu.cfs_quota_us'), String(quotaMs * 1000));
  writeFileSync(join(group, 'cgroup.procs'), String(pid));
  return {
    group,
    /** Periods in which the process had spent its quota and was stopped until the next. */
    throttledPeriods: () => Number(/^nr_throttled (\d+)$/m.exec(readFileSync(join(group, 'cpu.stat'), 'utf8'))?.[1]),
    release: () => {
      try {
        writeFileSync(join(CPU_CONTROLLER, 'cgroup.procs'), String(pid));
      } catch {
        // The process has exited: nothing to move.
      }
      rmdirSync(group);
    },
  };
};
