import { spawnSync } from 'node:child_process';

// HAProxy as the tests run it, apart from their harness so that a measuring script can load it too.

/** Debian installs it in /usr/sbin, which a user's PATH often leaves out. */
export const haproxyBinary = () => ['haproxy', '/usr/sbin/haproxy'].find((candidate) => !spawnSync(candidate, ['-v']).error);

/**
 * HAProxy's health checks on `/readyz`: one every CHECK_EVERY_MS; a server is out after
 * FAILED_CHECKS_TO_LEAVE failures in a row, and back after GOOD_CHECKS_TO_RETURN successes.
 */
export const CHECK_EVERY_MS = 500;
export const FAILED_CHECKS_TO_LEAVE = 3;
const GOOD_CHECKS_TO_RETURN = 2;

/**
 * HAProxy in front of `upstreams`, as a team that runs it would set it up for the service: health
 * checks on `/readyz` (above), keep-alive connections to the servers, and a request whose
 * connection was refused tried again on the other server.
 */
export const configFor = (listenPort: number, upstreams: string[]) => `
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
  default-server check inter ${String(CHECK_EVERY_MS)}ms fall ${String(FAILED_CHECKS_TO_LEAVE)} rise ${String(GOOD_CHECKS_TO_RETURN)}
${upstreams.map((upstream, index) => `  server api-${String(index + 1)} ${upstream}`).join('\n')}
`;
