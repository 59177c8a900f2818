import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { acceptsConnections } from '@petstore/core/testing';
import { spawnCommand } from './processes.js';
import { freePort } from './redis-server.js';

/** Debian installs it in /usr/sbin, which a user's PATH often leaves out. */
const nginxBinary = () => ['nginx', '/usr/sbin/nginx'].find((candidate) => !spawnSync(candidate, ['-v']).error);

export interface ConfigForTest {
  text: string;
  /** Each line the test changed, as shipped and as loaded. */
  changed: { shipped: string; loaded: string }[];
}

/**
 * The shipped configuration with its upstream servers' addresses replaced, in order, by `upstreams`
 * (`127.0.0.1:port`), and its `listen 80` by a free port on 127.0.0.1: port 80 needs root, and
 * other tests may run nginx at the same time. Every other line is as shipped.
 */
export const configForTest = (shipped: string, upstreams: string[], listenPort: number): ConfigForTest => {
  const changed: ConfigForTest['changed'] = [];
  let upstream = 0;
  const lines = shipped.split('\n').map((line) => {
    const server = /^(\s*server\s+)(\S+?)(\s.*|;.*)$/.exec(line);
    const listen = /^(\s*listen\s+)80(;.*)$/.exec(line);
    let loaded = line;
    if (server) loaded = `${server[1] ?? ''}${upstreams[upstream++] ?? 'missing'}${server[3] ?? ''}`;
    else if (listen) loaded = `${listen[1] ?? ''}127.0.0.1:${String(listenPort)}${listen[2] ?? ''}`;
    if (loaded !== line) changed.push({ shipped: line, loaded });
    return loaded;
  });
  if (upstream !== upstreams.length) throw new Error(`the shipped configuration has ${String(upstream)} upstream servers, the test ${String(upstreams.length)}`);
  return { text: lines.join('\n'), changed };
};

/** One line of the access log the wrapper writes: where nginx sent a request, and what it answered. */
export interface ProxiedRequest {
  method: string;
  status: number;
  /** Every upstream tried, in order: two when nginx passed the request on. */
  upstreams: string[];
  upstreamStatuses: string[];
  /** Per upstream tried: 0 when it refused the connection, more once the request went out. */
  upstreamBytesSent: number[];
  idempotencyKey: string;
  /** The last instance answered a create from its idempotency record: an earlier attempt had committed it. */
  replayed: boolean;
}

export interface RunningNginx {
  url: string;
  pid: number;
  config: ConfigForTest;
  /** The access log so far. */
  requests(this: void): ProxiedRequest[];
  /** The error log so far. */
  errors(this: void): string;
  /** Stops it (SIGTERM to the master) and deletes its folder. */
  dispose(this: void): Promise<void>;
}

/** The main configuration around the shipped one: what the nginx image's own main file sets, with paths in `folder`. */
const wrapper = (folder: string) => `
daemon off;
worker_processes auto;
pid ${folder}/nginx.pid;
error_log ${folder}/error.log warn;
events { worker_connections 1024; }
http {
  keepalive_timeout 65;
  log_format proxied escape=json '{"method":"$request_method","status":$status,"upstreams":"$upstream_addr","upstreamStatuses":"$upstream_status","upstreamBytesSent":"$upstream_bytes_sent","idempotencyKey":"$http_idempotency_key","replayed":"$upstream_http_idempotent_replayed"}';
  access_log ${folder}/access.log proxied;
  client_body_temp_path ${folder}/body;
  proxy_temp_path ${folder}/proxy;
  fastcgi_temp_path ${folder}/fastcgi;
  uwsgi_temp_path ${folder}/uwsgi;
  scgi_temp_path ${folder}/scgi;
  include ${folder}/petstore.conf;
}
`;

const readOr = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

const parseLine = (line: string): ProxiedRequest => {
  const raw = JSON.parse(line) as { method: string; status: number; upstreams: string; upstreamStatuses: string; upstreamBytesSent: string; idempotencyKey: string; replayed: string };
  const list = (value: string) => (value === '' ? [] : value.split(/\s*[,:]\s+/).filter((entry) => entry !== ''));
  return { ...raw, upstreams: list(raw.upstreams), upstreamStatuses: list(raw.upstreamStatuses), upstreamBytesSent: list(raw.upstreamBytesSent).map(Number), replayed: raw.replayed === 'true' };
};

/**
 * Debian's nginx (`nginx-light`) in the foreground, loading `config` (an `http`-level file, as the
 * nginx image includes deploy/nginx.conf) inside a main configuration of its own, from a temporary folder.
 */
export const startNginx = async (upstreams: string[], shipped: string): Promise<RunningNginx> => {
  const binary = nginxBinary();
  if (binary === undefined) throw new Error('nginx is not installed: this test runs the shipped deploy/nginx.conf (apt-get install nginx-light; .ci/run does).');
  const folder = mkdtempSync(join(tmpdir(), 'petstore-nginx-'));
  // Started as root, nginx's workers run as `nobody` and must reach their temporary folders.
  chmodSync(folder, 0o755);
  const port = await freePort();
  const config = configForTest(shipped, upstreams, port);
  writeFileSync(join(folder, 'petstore.conf'), config.text);
  writeFileSync(join(folder, 'nginx.conf'), wrapper(folder));
  const child = spawnCommand(binary, ['-p', `${folder}/`, '-c', join(folder, 'nginx.conf')], {}, folder);
  let printed = '';
  child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
  const deadline = Date.now() + 10_000;
  while (!(await acceptsConnections(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(folder, { recursive: true, force: true });
      throw new Error(`nginx did not start with the shipped configuration:\n${printed}`);
    }
    await sleep(20);
  }
  return {
    url: `http://127.0.0.1:${String(port)}`,
    pid: child.pid ?? 0,
    config,
    requests: () =>
      readOr(join(folder, 'access.log'))
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map(parseLine),
    errors: () => readOr(join(folder, 'error.log')) + printed,
    dispose: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
};
