import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFor, haproxyBinary } from './haproxy-config.js';
import { startProxyProcess } from './proxy-process.js';
import { freePort } from './redis-server.js';

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
