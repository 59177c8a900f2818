import { portNobodyHolds } from '@petstore/api/testing';
import { acceptsConnections } from '@petstore/core/testing';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface NginxUnderPrefix {
  /** Where the service is reached: nginx's address and the prefix, with no trailing slash. */
  url: string;
  /** The path of each request nginx was sent, in order. */
  paths(this: void): string[];
  dispose(this: void): Promise<void>;
}

/**
 * An ingress as a cluster or a gateway stage has one: the service under `prefix` (`/petstore/`),
 * the prefix taken off before the request goes on, and nothing else served (404, nginx's own page).
 * Answers stream through unbuffered, as a streamed batch needs.
 */
const configuration = (folder: string, port: number, upstream: string, prefix: string) => `
daemon off;
worker_processes 1;
pid ${folder}/nginx.pid;
error_log ${folder}/error.log warn;
events { worker_connections 256; }
http {
  log_format paths '$request_uri';
  access_log ${folder}/access.log paths;
  client_body_temp_path ${folder}/body;
  proxy_temp_path ${folder}/proxy;
  fastcgi_temp_path ${folder}/fastcgi;
  uwsgi_temp_path ${folder}/uwsgi;
  scgi_temp_path ${folder}/scgi;
  server {
    listen 127.0.0.1:${String(port)};
    location ${prefix} {
      proxy_pass http://${upstream}/;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
    location / {
      return 404;
    }
  }
}
`;

/** Debian's nginx (`nginx-light`) in the foreground, serving `upstream` (`127.0.0.1:port`) under `prefix`. */
export const startNginxUnderPrefix = async (upstream: string, prefix: string): Promise<NginxUnderPrefix> => {
  const folder = mkdtempSync(join(tmpdir(), 'petstore-client-nginx-'));
  // Started as root, nginx's workers run as `nobody` and must reach their temporary folders.
  chmodSync(folder, 0o755);
  const port = await portNobodyHolds();
  writeFileSync(join(folder, 'nginx.conf'), configuration(folder, port, upstream, prefix));
  const child = spawn('/usr/sbin/nginx', ['-p', `${folder}/`, '-c', join(folder, 'nginx.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let printed = '';
  child.stderr.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  const exited = once(child, 'exit');
  const deadline = Date.now() + 10_000;
  while (!(await acceptsConnections(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not start (apt-get install nginx-light):\n${printed}`);
    }
    await sleep(20);
  }
  return {
    url: `http://127.0.0.1:${String(port)}${prefix.replace(/\/$/, '')}`,
    paths: () => readFileSync(join(folder, 'access.log'), 'utf8').split('\n').filter((line) => line !== ''),
    dispose: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
};
