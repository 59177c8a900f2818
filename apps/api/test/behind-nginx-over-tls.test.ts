import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:tls';
import { join } from 'node:path';
import type { Pet } from '@petstore/core';
import { afterAll, describe, expect } from 'vitest';
import { type TestServer, it } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';
import { type RunningNginx, startShippedNginx } from './support/nginx.js';
import { REPO_ROOT } from './support/processes.js';

/**
 * deploy/ as a team copies it outside Docker and compose mounts it: Debian's nginx on
 * deploy/nginx.conf as shipped, deploy/petstore.conf with only what an operator fills in (the
 * instances' addresses, the ports), a throwaway certificate made by the command docs/operating.md
 * gives, and the service behind it. Clients trust that certificate, as they would their CA's.
 */

/** Strict-Transport-Security as the site sends it: two years. */
const HSTS = 'max-age=63072000';

let nginx: Omit<RunningNginx, 'requests'>;
let service: TestServer;

it.beforeAll(async ({ server }) => {
  service = server;
  const upstream = new URL(server.url).host;
  nginx = await startShippedNginx([upstream, upstream]);
}, 60_000);

afterAll(async () => {
  await nginx.dispose();
});

/** The service, reached through nginx over HTTPS. */
const through = () => ({ url: nginx.url, apiKey: service.apiKey });

describe('deploy/ as shipped, ending TLS in front of the service', () => {
  it('is deploy/nginx.conf unchanged, and deploy/petstore.conf with only the addresses and ports filled in', () => {
    expect(nginx.config.changed.map(({ shipped }) => shipped.trim())).toEqual(['server api-1:3000 max_fails=0;', 'server api-2:3000 max_fails=0;', 'listen 80;', 'listen 443 ssl;']);
    expect(readFileSync(join(REPO_ROOT, 'deploy', 'nginx.conf'), 'utf8')).toMatch(/^\s*include petstore\.conf;$/m);
  });

  it('serves the contract over HTTPS: a create, its replay, a page, a refused key, tRPC, the document and the docs page', async () => {
    // `call` holds every answer to the OpenAPI document the server serves, here read through nginx too.
    const created = await call(through(), '/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 1 }, headers: { 'Idempotency-Key': 'tls-1' } });
    expect(created.status).toBe(201);
    const rex = (await created.json()) as Pet;
    expect(created.headers.get('location')).toBe(`/v1/pets/${String(rex.id)}`);
    const replayed = await call(through(), '/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 1 }, headers: { 'Idempotency-Key': 'tls-1' } });
    expect([replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    const page = await call(through(), '/v1/pets?limit=1');
    expect(await page.json()).toEqual([rex]);
    const refused = await call(through(), '/v1/pets', { key: null });
    await expectError(refused, 401, 'UNAUTHORIZED');
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="petstore"');
    const trpc = await fetch(`${nginx.url}/trpc/listPets?input=${encodeURIComponent('{"limit":1}')}`, { headers: { Authorization: `Bearer ${service.apiKey}` } });
    expect(await trpc.json()).toEqual({ result: { data: { items: [rex], nextCursor: null } } });
    expect((await fetch(`${nginx.url}/docs`)).status).toBe(200);
  });

  it('sends Strict-Transport-Security on every HTTPS answer, errors included, beside the service\'s own headers', async () => {
    for (const [path, status] of [['/v1/pets', 401], ['/nowhere', 404], ['/healthz', 200], ['/', 200]] as const) {
      const response = await fetch(`${nginx.url}${path}`);
      await response.arrayBuffer();
      expect([path, response.status, response.headers.get('strict-transport-security')]).toEqual([path, status, HSTS]);
      expect(response.headers.get('x-request-id')).toMatch(/\S/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      // No version of nginx's own (server_tokens off).
      expect(response.headers.get('server')).toBe('nginx');
    }
  });

  it.for(['TLSv1.2', 'TLSv1.3'] as const)('takes %s, with a forward-secret cipher', async (version) => {
    const { protocol, cipher } = await new Promise<{ protocol: string | null; cipher: string }>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: Number(new URL(nginx.url).port), servername: 'localhost', minVersion: version, maxVersion: version }, () => {
        resolve({ protocol: socket.getProtocol(), cipher: socket.getCipher().name });
        socket.end();
      });
      socket.once('error', reject);
    });
    expect(protocol).toBe(version);
    expect(cipher).toMatch(version === 'TLSv1.3' ? /^TLS_(AES|CHACHA20)/ : /^ECDHE-/);
  });

  it('answers plain HTTP with a redirect to the same path on HTTPS, and passes nothing to the service', async () => {
    const plain = new URL(nginx.plainUrl);
    const answer = await new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
      const req = request({ host: plain.hostname, port: plain.port, path: '/v1/pets?limit=1', headers: { Authorization: `Bearer ${service.apiKey}` } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, body }); });
      });
      req.on('error', reject);
      req.end();
    });
    expect([answer.status, answer.headers.location]).toEqual([301, 'https://127.0.0.1/v1/pets?limit=1']);
    // Every answer of the service carries a request id: this one is nginx's alone.
    expect(answer.headers['x-request-id']).toBeUndefined();
    expect(answer.body).not.toContain('"id"');
  });
});
