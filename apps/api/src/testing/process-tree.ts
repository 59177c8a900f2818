import { readFileSync, readdirSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  parent: number;
  /** Its command line, arguments joined by spaces. */
  command: string;
  /** Resident memory now (VmRSS), in MiB. */
  rssMiB: number;
}

const readProc = (pid: number, file: string) => {
  try {
    return readFileSync(`/proc/${String(pid)}/${file}`, 'utf8');
  } catch {
    return undefined; // it exited while we looked
  }
};

const processInfo = (pid: number): ProcessInfo[] => {
  const stat = readProc(pid, 'stat');
  const status = readProc(pid, 'status');
  const cmdline = readProc(pid, 'cmdline');
  if (stat === undefined || status === undefined || cmdline === undefined) return [];
  // The command name in stat is parenthesised and may hold spaces: the state, then the parent,
  // follow its last parenthesis.
  const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  const rssKiB = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
  return [{ pid, parent, command: cmdline.split('\0').join(' ').trim(), rssMiB: rssKiB / 1024 }];
};

/** Every live process under `root` (not `root` itself), parents before children, from Linux's /proc. */
export const descendantsOf = (root: number): ProcessInfo[] => {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => processInfo(Number(name)));
  const found: ProcessInfo[] = [];
  const parents = [root];
  for (let parent = parents.shift(); parent !== undefined; parent = parents.shift()) {
    for (const child of all.filter((candidate) => candidate.parent === parent)) {
      found.push(child);
      parents.push(child.pid);
    }
  }
  return found;
};

/** Whether `pid` is alive: present in /proc and not a zombie waiting to be reaped. */
export const isRunning = (pid: number) => {
  const stat = readProc(pid, 'stat');
  return stat !== undefined && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
};
