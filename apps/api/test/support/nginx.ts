import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { startProxyProcess } from './proxy-process.js';
import { REPO_ROOT } from './processes.js';
import { freePort } from './redis-server.js';

/** Debian installs it in /usr/sbin, which a user's PATH often leaves out. */
const nginxBinary = () => ['nginx', '/usr/sbin/nginx'].find((candidate) => !spawnSync(candidate, ['-v']).error);

const shipped = (file: string) => readFileSync(join(REPO_ROOT, 'deploy', file), 'utf8');

export interface ConfigForTest {
  text: string;
  /** Each line the test changed, as shipped and as loaded. */
  changed: { shipped: string; loaded: string }[];
}

export interface Listening {
  /** Where `listen 443 ssl` listens instead. */
  https: number;
  /** Where `listen 80` listens instead. */
  http: number;
}

/**
 * The shipped site (deploy/petstore.conf) with what an operator fills in replaced: its upstream
 * servers' addresses, in order, by `upstreams` (`127.0.0.1:port`), and its `listen 443 ssl` and
 * `listen 80` by free ports on 127.0.0.1 (those need root, and other tests may run nginx at the
 * same time). Every other line is as shipped.
 */
export const configForTest = (site: string, upstreams: string[], ports: Listening): ConfigForTest => {
  const changed: ConfigForTest['changed'] = [];
  let upstream = 0;
  const lines = site.split('\n').map((line) => {
    const server = /^(\s*server\s+)([\w.-]+:\d+)(\s.*|;.*)$/.exec(line);
    const secure = /^(\s*listen\s+)443 ssl(;.*)$/.exec(line);
    const plain = /^(\s*listen\s+)80(;.*)$/.exec(line);
    let loaded = line;
    if (server) loaded = `${server[1] ?? ''}${upstreams[upstream++] ?? 'missing'}${server[3] ?? ''}`;
    else if (secure) loaded = `${secure[1] ?? ''}127.0.0.1:${String(ports.https)} ssl${secure[2] ?? ''}`;
    else if (plain) loaded = `${plain[1] ?? ''}127.0.0.1:${String(ports.http)}${plain[2] ?? ''}`;
    if (loaded !== line) changed.push({ shipped: line, loaded });
    return loaded;
  });
  if (upstream !== upstreams.length) throw new Error(`the shipped configuration has ${String(upstream)} upstream servers, the test ${String(upstreams.length)}`);
  return { text: lines.join('\n'), changed };
};

/** The documented command that makes a throwaway certificate (docs/operating.md, HTTPS), as a reader pastes it. */
export const CERTIFICATE_COMMAND = (() => {
  const operating = readFileSync(join(REPO_ROOT, 'docs', 'operating.md'), 'utf8');
  const https = operating.slice(operating.indexOf('## HTTPS'));
  // A `text` block: the README's pasted pages would write it into the reader's own deploy/tls/.
  const command = /```text\n(# A throwaway certificate[^`]*)```/.exec(https)?.[1];
  if (command === undefined) throw new Error('docs/operating.md, HTTPS, has no throwaway certificate command');
  return command;
})();

/**
 * A folder laid out as the repository's deploy/ (inside a folder of its own, which the documented
 * certificate command runs from): the throwaway certificate made by that command in `deploy/tls/`,
 * and the test process told to trust it, as a client given the certificate's authority would.
 * Started as root, nginx's workers run as `nobody` and must reach their temporary folders.
 */
const deployFolder = () => {
  const root = mkdtempSync(join(tmpdir(), 'petstore-nginx-'));
  chmodSync(root, 0o755);
  const folder = join(root, 'deploy');
  mkdirSync(folder);
  chmodSync(folder, 0o755);
  execFileSync('sh', ['-c', CERTIFICATE_COMMAND], { cwd: root, stdio: 'pipe' });
  const certificate = readFileSync(join(folder, 'tls', 'fullchain.pem'), 'utf8');
  setDefaultCACertificates([...getCACertificates('default'), certificate]);
  return { root, folder, certificate };
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
  /** HTTPS, where clients go. */
  url: string;
  /** Plain HTTP, which redirects. */
  plainUrl: string;
  /** The throwaway certificate, which the test process trusts. */
  certificate: string;
  config: ConfigForTest;
  /** The access log so far (the wrapper's only). */
  requests(this: void): ProxiedRequest[];
  /** The error log so far. */
  errors(this: void): string;
  /** Stops it (SIGTERM to the master) and deletes its folder. */
  dispose(this: void): Promise<void>;
}

/** The main configuration around the shipped site: what the nginx image's own main file sets, with paths in `folder`, and an access log the test reads. */
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

const binaryOrThrow = () => {
  const binary = nginxBinary();
  if (binary === undefined) throw new Error('nginx is not installed: this test runs the shipped deploy/ configuration (apt-get install nginx-light; .ci/run does).');
  return binary;
};

/**
 * Debian's nginx (`nginx-light`) in the foreground, loading the shipped site (deploy/petstore.conf,
 * an `http`-level file, TLS ending in it) inside a main configuration of the test's own, which
 * writes an access log the test reads, from a temporary folder.
 */
export const startNginx = async (upstreams: string[]): Promise<RunningNginx> => {
  const binary = binaryOrThrow();
  const { root, folder, certificate } = deployFolder();
  const ports = { https: await freePort(), http: await freePort() };
  const config = configForTest(shipped('petstore.conf'), upstreams, ports);
  writeFileSync(join(folder, 'petstore.conf'), config.text);
  writeFileSync(join(folder, 'nginx.conf'), wrapper(folder));
  const running = await startProxyProcess(binary, ['-p', `${folder}/`, '-c', join(folder, 'nginx.conf')], root, ports.https);
  return {
    url: `https://127.0.0.1:${String(ports.https)}`,
    plainUrl: `http://127.0.0.1:${String(ports.http)}`,
    certificate,
    config,
    requests: () =>
      readOr(join(folder, 'access.log'))
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map(parseLine),
    errors: () => readOr(join(folder, 'error.log')) + running.printed(),
    dispose: running.dispose,
  };
};

/**
 * Debian's nginx running deploy/ as shipped and as an operator runs it outside Docker
 * (`nginx -c …/nginx.conf`, the site and tls/ beside it): deploy/nginx.conf unchanged, the site
 * with only what an operator fills in replaced. Its process id goes to its folder (`-g`), since
 * other tests may run nginx at the same time; its logs and temporary files go where Debian's build
 * puts them, as they would for the operator.
 */
export const startShippedNginx = async (upstreams: string[]): Promise<Omit<RunningNginx, 'requests'>> => {
  const binary = binaryOrThrow();
  const { root, folder, certificate } = deployFolder();
  const ports = { https: await freePort(), http: await freePort() };
  const config = configForTest(shipped('petstore.conf'), upstreams, ports);
  writeFileSync(join(folder, 'petstore.conf'), config.text);
  copyFileSync(join(REPO_ROOT, 'deploy', 'nginx.conf'), join(folder, 'nginx.conf'));
  const running = await startProxyProcess(binary, ['-c', join(folder, 'nginx.conf'), '-g', `daemon off; pid ${folder}/nginx.pid;`], root, ports.https);
  return {
    url: `https://127.0.0.1:${String(ports.https)}`,
    plainUrl: `http://127.0.0.1:${String(ports.http)}`,
    certificate,
    config,
    errors: () => running.printed(),
    dispose: running.dispose,
  };
};
