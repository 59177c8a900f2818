import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collect } from './processes.js';
import { freePort } from './redis-server.js';

export interface OwnPostgres {
  /** A database of its own on the cluster, for the service. */
  url: string;
  /** `pg_ctl stop -m fast`, as a restart begins: sessions are ended, then the server stops. */
  stop(): Promise<void>;
  /** `pg_ctl start`, returning once it accepts connections. */
  start(): Promise<void>;
  /** Stops it and deletes its folder. */
  dispose(): Promise<void>;
}

/** The newest PostgreSQL whose server binaries Debian's packages installed. */
const binaries = () => {
  const root = '/usr/lib/postgresql';
  const newest = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) throw new Error(`no PostgreSQL under ${root}: this test runs a cluster of its own (apt-get install postgresql)`);
  return join(root, newest, 'bin');
};

/** PostgreSQL refuses to run as root: as root, the cluster runs as the `postgres` user. */
const runAs = () => {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
};

/**
 * A PostgreSQL cluster of the test's own (initdb, then pg_ctl) on a free port on 127.0.0.1, in a
 * temporary folder: a test that stops and starts PostgreSQL, or runs it out of connections
 * (`maxConnections`, 60 unless given), or needs a server setting of its own (`settings`, each a
 * `-c name=value`), must never touch the server other tests share.
 */
export const startOwnPostgres = async ({ maxConnections = 60, settings = {} }: { maxConnections?: number; settings?: Record<string, string> } = {}): Promise<OwnPostgres> => {
  const bin = binaries();
  const user = runAs();
  const folder = mkdtempSync(join(tmpdir(), 'petstore-postgres-'));
  const data = join(folder, 'data');
  const port = await freePort();
  if (user.uid !== undefined) chownSync(folder, user.uid, user.gid);
  chmodSync(folder, 0o700);
  const run = async (command: string, args: string[]) => {
    const child = spawn(join(bin, command), args, { cwd: folder, ...user, env: { PATH: process.env.PATH ?? '', LANG: 'C.UTF-8' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const finished = await collect(child);
    if (finished.code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${String(finished.code)}):\n${finished.stdout}${finished.stderr}`);
  };
  await run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = `-c listen_addresses=127.0.0.1 -c port=${String(port)} -c unix_socket_directories='${folder}' -c max_connections=${String(maxConnections)}${Object.entries(settings)
    .map(([name, value]) => ` -c ${name}=${value}`)
    .join('')}`;
  const start = () => run('pg_ctl', ['start', '-D', data, '-w', '-t', '30', '-l', join(folder, 'log'), '-o', options]);
  const stop = () => run('pg_ctl', ['stop', '-D', data, '-w', '-t', '30', '-m', 'fast']);
  await start();
  await run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'petstore']);
  return {
    url: `postgres://postgres@127.0.0.1:${String(port)}/petstore`,
    stop,
    start,
    dispose: async () => {
      await stop().catch(() => undefined);
      rmSync(folder, { recursive: true, force: true });
    },
  };
};
