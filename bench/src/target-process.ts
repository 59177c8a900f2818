import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTINGS } from '@petstore/api/settings';
import { READY_LINE, type TargetDatabase, handedEnvironment } from './targets/ready.js';

export interface TargetProcess {
  url: string;
  pid: number;
  /** The process's peak resident memory so far (VmHWM), in MiB. */
  peakRssMiB(): number;
  /** The process's resident memory now (VmRSS), in MiB. */
  rssMiB(): number;
  /** CPU time the process has used so far, all threads, in seconds (a steadier cost than req/s on a shared machine). */
  cpuSeconds(): number;
  /** Sends SIGTERM and resolves with how the process ended: its exit code, or the signal that ended it. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

// Linux reports utime and stime in clock ticks; USER_HZ is 100 on every mainstream build.
const TICKS_PER_SECOND = 100;

/** User and system CPU time a process has used so far, all threads, in clock ticks (1/100 s). */
const cpuTicksOf = (pid: number) => {
  // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return { user: Number(fields[11]), system: Number(fields[12]) };
};

const cpuSecondsOf = (pid: number) => {
  const { user, system } = cpuTicksOf(pid);
  return (user + system) / TICKS_PER_SECOND;
};

/** The value of one line of a process's /proc status (`VmRSS`, `Cpus_allowed_list`), as Linux writes it. */
export const statusOf = (pid: number, field: string): string | undefined =>
  new RegExp(`^${field}:\\s+(.+)$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];

/** A memory line of the status (`VmRSS:  123456 kB`), in MiB. */
const statusMiB = (pid: number, field: string) => Number(/^(\d+) kB$/.exec(statusOf(pid, field) ?? '')?.[1] ?? Number.NaN) / 1024;

/** Some of the service's settings, by their names in its configuration, as the text of their variables. */
export type ServiceSettings = Partial<Record<keyof typeof SETTINGS, string>>;

/** The service's settings as its environment: each variable named by the service's own declaration. */
const serviceEnvironment = (settings: ServiceSettings) =>
  Object.fromEntries(
    Object.entries(settings).map(([key, value]) => [SETTINGS[key as keyof typeof SETTINGS].variable, value]),
  );

// A target's storage is the benchmark's choice, never the shell's.
const STORAGE_VARIABLES = new Set<string>(
  (['databaseFile', 'databaseUrl', 'redisUrl', 'redisKeyPrefix'] as const).map((key) => SETTINGS[key].variable),
);
const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !STORAGE_VARIABLES.has(name)));

export interface TargetOptions {
  /** The data the target serves: its own copy, so one target's creates never change another's. */
  database: TargetDatabase;
  /** The one key the peers and bare servers hold in memory; the service reads its keys from the database. */
  apiKey: string;
  /** More of the service's settings; the peers and bare servers have none. */
  service?: ServiceSettings;
}

/** This checkout's apps/api: the service a run measures unless told to start another checkout's. */
const API_ROOT = fileURLToPath(new URL('../../apps/api/', import.meta.url));

/**
 * The command `pnpm start` runs for the apps/api at `apiRoot` (node, its flags, dist/main.js),
 * read from its package.json so the benchmark measures the service exactly as that checkout
 * starts it.
 */
const serviceCommand = (apiRoot: string) => {
  const manifest = JSON.parse(readFileSync(join(apiRoot, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [command, ...args] = manifest.scripts.start.split(/\s+/);
  if (command !== 'node') throw new Error(`${apiRoot} starts with "${manifest.scripts.start}", expected node`);
  const script = args.findIndex((arg) => !arg.startsWith('-'));
  return { nodeFlags: args.slice(0, script), script: args.slice(script) };
};

/**
 * The targets as built: bench/dist/targets whether this module runs from dist (the bench) or from
 * src (its tests, under vitest), so a target is always plain node running compiled JavaScript.
 */
const target = (name: string) => fileURLToPath(new URL(`../dist/targets/${name}.js`, import.meta.url));

interface Launch {
  argv: string[];
  cwd: string | undefined;
  /** The target's own environment, from what the bench hands it. */
  environment: Record<string, string>;
  /** How the target says which port it took. */
  ready: RegExp;
}

/**
 * How each kind of target is started, given the apps/api whose service it is or runs beside. The
 * peers and the baseline run with that service's node flags (its heap limit): the same
 * deployment, so only the code differs.
 */
const sameDeployment =
  (name: string) =>
  (apiRoot: string, { database, apiKey }: TargetOptions): Launch => ({
    argv: [process.execPath, ...serviceCommand(apiRoot).nodeFlags, target(name)],
    cwd: undefined,
    environment: handedEnvironment(database, apiKey),
    ready: READY_LINE,
  });
const launchers = {
  service: (apiRoot: string, { database, service }: TargetOptions): Launch => {
    const { nodeFlags, script } = serviceCommand(apiRoot);
    const [main = ''] = script;
    if (!existsSync(join(apiRoot, main))) throw new Error(`${join(apiRoot, main)} is missing: install and build that checkout first`);
    const storage: ServiceSettings = 'file' in database ? { databaseFile: database.file } : { databaseUrl: database.url };
    return {
      argv: [process.execPath, ...nodeFlags, ...script],
      cwd: apiRoot,
      environment: serviceEnvironment({ logLevel: 'info', port: '0', host: '127.0.0.1', ...storage, ...service }),
      ready: /"port":(\d+)/,
    };
  },
  'fastify-peer': sameDeployment('fastify-peer'),
  'fastify-features-peer': sameDeployment('fastify-features-peer'),
  'express-peer': sameDeployment('express-peer'),
  'hono-peer': sameDeployment('hono-peer'),
  'orpc-peer': sameDeployment('orpc-peer'),
  'bare-node': sameDeployment('bare-node'),
  'bare-pg': sameDeployment('bare-pg'),
  'bare-pg-unnamed': sameDeployment('bare-pg-unnamed'),
};
export type TargetKind = keyof typeof launchers;

/**
 * How long a target may take to say which port it took. A target that never says it (a service
 * started with a log level that hides the line, a peer stuck opening its database) fails the run
 * with what it printed, instead of holding it forever.
 */
export const TARGET_START_TIMEOUT_MS = 30_000;

/**
 * Starts a target server in its own process (the load generator keeps the other core), as
 * compiled JavaScript run by plain node: a TypeScript loader would add its own memory and work.
 * `apiRoot` is the apps/api folder of an installed and built checkout: this one's unless the
 * run compares with another's.
 */
export const startTarget = async (
  kind: TargetKind,
  options: TargetOptions,
  apiRoot: string = API_ROOT,
  startTimeoutMs: number = TARGET_START_TIMEOUT_MS,
): Promise<TargetProcess> => {
  const { argv, cwd, environment, ready } = launchers[kind](apiRoot, options);
  const [command = process.execPath, ...args] = argv;
  const child: ChildProcess = spawn(command, args, {
    cwd,
    // Production mode for every target: Express, for one, does less in it.
    env: { ...inherited, NODE_ENV: 'production', ...environment },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    const silent = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${kind} did not say which port it took within ${String(startTimeoutMs)} ms: ${seen}`));
    }, startTimeoutMs);
    const onOutput = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = ready.exec(seen);
      if (!match) return;
      clearTimeout(silent);
      // From here on the output is the target's request log: read and dropped, never kept or
      // scanned, so the load generator's work does not grow with it.
      child.stdout?.off('data', onOutput);
      child.stdout?.resume();
      resolve(Number(match[1]));
    };
    child.stdout?.on('data', onOutput);
    child.once('exit', (code) => {
      clearTimeout(silent);
      reject(new Error(`${kind} exited with ${String(code)}: ${seen}`));
    });
  });
  const pid = child.pid ?? 0;
  return {
    url: `http://127.0.0.1:${port}`,
    pid,
    peakRssMiB: () => statusMiB(pid, 'VmHWM'),
    rssMiB: () => statusMiB(pid, 'VmRSS'),
    cpuSeconds: () => cpuSecondsOf(pid),
    stop: async () => {
      const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
      child.kill('SIGTERM');
      const [code, signal] = await exited;
      return { code, signal };
    },
  };
};
