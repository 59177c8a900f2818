import { execFileSync } from 'node:child_process';
import { statusOf } from './target-process.js';

/** The cores a process may run on, as Linux lists them (`0-1`, `0,2-3`). */
export const coresOf = (pid: number): string => statusOf(pid, 'Cpus_allowed_list') ?? '';

/** Each core of a list such as `0,2-3`. */
const eachCore = (list: string): number[] =>
  list.split(',').flatMap((range) => {
    const [first = Number.NaN, last = first] = range.split('-').map(Number);
    return Array.from({ length: last - first + 1 }, (_, index) => first + index);
  });

/** Lets every thread of `pid` run on `cores` only (`taskset`, util-linux). */
const allowCores = (pid: number, cores: string) => {
  execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', cores, String(pid)], { stdio: 'ignore' });
};

/**
 * Runs `work` with the `served` processes sharing one core and this process (the load) on
 * another, then gives each process back the cores it had. Two processes compared by their CPU per
 * call are measured best this way: each second of that core that one of them is not given, the
 * other is, and neither shares a core with the load generator, as they do in turn when the system
 * places them. With fewer than two cores to choose from, `work` runs as the system places it.
 */
export const onOneCore = async <T>(served: readonly number[], work: () => Promise<T>): Promise<T> => {
  const pids = [process.pid, ...served];
  const before = pids.map((pid) => coresOf(pid));
  const [loadCore, servedCore] = eachCore(before[0] ?? '');
  if (loadCore === undefined || servedCore === undefined) return work();
  allowCores(process.pid, String(loadCore));
  for (const pid of served) allowCores(pid, String(servedCore));
  try {
    return await work();
  } finally {
    pids.forEach((pid, index) => {
      allowCores(pid, before[index] ?? '');
    });
  }
};
