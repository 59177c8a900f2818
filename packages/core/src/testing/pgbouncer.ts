import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { acceptsConnections } from './accepts-connections.js';
import { refuseWithout } from './sqlite-only.js';

/** PgBouncer's `pool_mode`: a server connection per client for its whole session, or per transaction. */
export type PgBouncerPoolMode = 'session' | 'transaction';

export interface PgBouncerOptions {
  /** The PostgreSQL it fronts (only its host and port are used: every database there is served). */
  server: string;
  poolMode: PgBouncerPoolMode;
  /**
   * More `[pgbouncer]` settings, such as `max_client_conn`. Unset, every setting that decides what
   * a client may send is the package's default: `ignore_startup_parameters` empty, as shipped.
   */
  settings?: Record<string, string>;
}

export interface RunningPgBouncer {
  pid: number;
  /** `url` (a database on the server it fronts) as reached through PgBouncer. */
  through(this: void, url: string): string;
  /** Its log so far. */
  log(this: void): string;
  /** Stops it (SIGTERM: immediate shutdown) and deletes its folder. */
  stop(this: void): Promise<void>;
}

/** Debian installs it in /usr/sbin, which a user's PATH often leaves out. */
const binary = () => ['pgbouncer', '/usr/sbin/pgbouncer'].find((candidate) => !spawnSync(candidate, ['--version']).error);

/** PgBouncer refuses to run as root: as root, it runs as the `postgres` user, as Debian's package runs it. */
const unprivileged = () => {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
};

const freePort = async (): Promise<number> => {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
};

/**
 * Debian's PgBouncer in the foreground on a free port on 127.0.0.1, with a configuration written to
 * a temporary folder: every database of `server`, trusted as the server trusts its clients, in
 * `poolMode`, everything else as the package ships it unless `settings` says otherwise. Stopped by
 * its own PID.
 */
export const startPgBouncer = async ({ server, poolMode, settings = {} }: PgBouncerOptions): Promise<RunningPgBouncer> => {
  refuseWithout('PgBouncer');
  const command = binary();
  if (command === undefined) throw new Error('PgBouncer is not installed: this test runs Debian\'s (apt-get install pgbouncer; .ci/run does).');
  const target = new URL(server);
  const user = unprivileged();
  const folder = mkdtempSync(join(tmpdir(), 'petstore-pgbouncer-'));
  const port = await freePort();
  const lines = {
    listen_addr: '127.0.0.1',
    listen_port: String(port),
    unix_socket_dir: '',
    auth_type: 'trust',
    auth_file: join(folder, 'users.txt'),
    logfile: join(folder, 'pgbouncer.log'),
    pool_mode: poolMode,
    ...settings,
  };
  writeFileSync(join(folder, 'users.txt'), `"${decodeURIComponent(target.username) || 'postgres'}" ""\n`);
  writeFileSync(
    join(folder, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || '5432'}`,
      '[pgbouncer]',
      ...Object.entries(lines).map(([name, value]) => `${name} = ${value}`),
      '',
    ].join('\n'),
  );
  if (user.uid !== undefined) for (const path of [folder, join(folder, 'users.txt'), join(folder, 'pgbouncer.ini')]) chownSync(path, user.uid, user.gid);
  const child: ChildProcess = spawn(command, [join(folder, 'pgbouncer.ini')], { ...user, stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const exited = once(child, 'exit');
  const log = () => {
    try {
      return readFileSync(join(folder, 'pgbouncer.log'), 'utf8') + printed;
    } catch {
      return printed;
    }
  };
  const deadline = Date.now() + 10_000;
  while (!(await acceptsConnections(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      const said = log();
      rmSync(folder, { recursive: true, force: true });
      throw new Error(`PgBouncer did not start:\n${said}`);
    }
    await sleep(20);
  }
  return {
    pid: child.pid ?? 0,
    through: (url) => {
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(port);
      return proxied.toString();
    },
    log,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
};
