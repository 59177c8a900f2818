import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProxyProcess } from './proxy-process.js';
import { freePort } from './redis-server.js';

/** Debian installs it in /usr/sbin, which a user's PATH often leaves out. */
const haproxyBinary = () => ['haproxy', '/usr/sbin/haproxy'].find((candidate) => !spawnSync(candidate, ['-v']).error);

/** HAProxy's health checks on `/readyz`: one every CHECK_EVERY_MS; a server is out after FAILED_CHECKS_TO_LEAVE failures in a row. */
export const CHECK_EVERY_MS = 500;
export const FAILED_CHECKS_TO_LEAVE = 3;

/**
 * HAProxy in front of `upstreams`, as a team that runs it would set it up for the service: health
 * checks on `/readyz` (a server is out after 3 failed checks, back after 2 good ones), keep-alive
 * connections to the servers, and a request whose connection was refused tried again on the other
 * server.
 */
const configFor = (listenPort: number, upstreams: string[]) => `
global
  maxconn 4096
  log stdout format raw local0 info
defaults
  mode http
  log global
  option httplog
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  retries 3
  option redispatch
  option http-keep-alive
frontend petstore
  bind 127.0.0.1:${String(listenPort)}
  default_backend instances
backend instances
  balance roundrobin
  option httpchk GET /readyz
  default-server check inter ${String(CHECK_EVERY_MS)}ms fall ${String(FAILED_CHECKS_TO_LEAVE)} rise 2
${upstreams.map((upstream, index) => `  server api-${String(index + 1)} ${upstream}`).join('\n')}
`;

export interface RunningHaproxy {
  url: string;
  /** What HAProxy printed: servers going down and up. */
  output(this: void): string;
  dispose(this: void): Promise<void>;
}

/** Debian's `haproxy` in the foreground, from a temporary folder, stopped by its PID. */
export const startHaproxy = async (upstreams: string[]): Promise<RunningHaproxy> => {
  const binary = haproxyBinary();
  if (binary === undefined) throw new Error('haproxy is not installed: this test runs the service behind it (apt-get install haproxy; .ci/run does).');
  const folder = mkdtempSync(join(tmpdir(), 'petstore-haproxy-'));
  const port = await freePort();
  writeFileSync(join(folder, 'haproxy.cfg'), configFor(port, upstreams));
  const running = await startProxyProcess(binary, ['-db', '-f', join(folder, 'haproxy.cfg')], folder, port);
  return { url: `http://127.0.0.1:${String(port)}`, output: running.printed, dispose: running.dispose };
};
