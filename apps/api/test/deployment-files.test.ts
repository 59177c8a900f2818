import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readConfig } from '../src/settings/config.js';
import { API_ROOT, REPO_ROOT } from './support/processes.js';

// What can be checked of the production files without a Docker engine: that they parse, agree
// with each other, and start the service the way docs/operating.md and `pnpm start` do.
const read = (...path: string[]) => readFileSync(join(REPO_ROOT, ...path), 'utf8');

interface ComposeService {
  build?: string;
  image?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
}
const compose = parse(read('docker-compose.yml')) as { services: Record<string, ComposeService> };
const dockerfile = read('Dockerfile');
/** The Node CI runs the full check on and the production image is built from. */
const RECOMMENDED = read('.nvmrc').trim();
const RECOMMENDED_MAJOR = RECOMMENDED.split('.')[0] ?? '';
const startScript = (JSON.parse(readFileSync(join(API_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;

const instruction = (name: string) =>
  dockerfile
    .split('\n')
    .filter((line) => line.startsWith(`${name} `))
    .map((line) => line.slice(name.length + 1).trim());

describe('the Dockerfile', () => {
  it('starts the service with the command pnpm start runs, which the operating page gives', () => {
    const cmd = instruction('CMD').at(-1) ?? '';
    expect((JSON.parse(cmd) as string[]).join(' ')).toBe(startScript);
    expect(read('docs', 'operating.md')).toContain(startScript);
  });

  it('builds and runs on the Node CI proves, and listens where it says', () => {
    expect(instruction('FROM').map((from) => from.split(' ')[0])).toEqual([`node:${RECOMMENDED_MAJOR}-bookworm-slim`, `node:${RECOMMENDED_MAJOR}-bookworm-slim`]);
    expect(instruction('ENV').join(' ')).toMatch(/PORT=3000/);
    expect(instruction('EXPOSE')).toEqual(['3000']);
  });
});

describe('the Node the repository recommends', () => {
  it('is one version: .nvmrc, the build the install brings to an older machine, @types/node and the README agree', () => {
    const brought = (JSON.parse(read('tools', 'node', RECOMMENDED_MAJOR, 'package.json')) as { optionalDependencies: Record<string, string> }).optionalDependencies;
    expect([...new Set(Object.values(brought))]).toEqual([RECOMMENDED]);
    const typesOfNode = (JSON.parse(readFileSync(join(API_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['@types/node'];
    expect(typesOfNode?.split('.')[0]).toBe(RECOMMENDED_MAJOR);
    expect(read('README.md')).toContain(`Node ${RECOMMENDED}`);
  });

  it('is accepted by engines, and is the newest major the README names', () => {
    const { engines } = JSON.parse(read('package.json')) as { engines: { node: string } };
    const oldest = /^>=(\d+)\.(\d+)$/.exec(engines.node);
    expect(Number(RECOMMENDED_MAJOR)).toBeGreaterThanOrEqual(Number(oldest?.[1]));
    expect(read('README.md')).toContain(`Node.js ${oldest?.[1] ?? ''}.${oldest?.[2] ?? ''} or later`);
  });
});

describe('docker-compose.yml', () => {
  const apis = Object.entries(compose.services).filter(([, service]) => service.build === '.');

  it('runs two instances of the image on one PostgreSQL and one Redis, with settings the service accepts', () => {
    expect(apis.map(([name]) => name)).toEqual(['api-1', 'api-2']);
    for (const [, service] of apis) {
      const config = readConfig(service.environment ?? {});
      expect(new URL(config.databaseUrl ?? '').hostname).toBe('postgres');
      expect(new URL(config.redisUrl ?? '').hostname).toBe('redis');
    }
    expect(compose.services.postgres?.image).toMatch(/^postgres:/);
    expect(compose.services.redis?.image).toMatch(/^redis:/);
  });

  it('puts a load balancer in front that spreads requests over both instances', () => {
    const balancer = compose.services['load-balancer'];
    expect(balancer?.volumes).toContain('./deploy/nginx.conf:/etc/nginx/conf.d/default.conf:ro');
    const upstreams = [...read('deploy', 'nginx.conf').matchAll(/^\s*server (\S+):(\d+)/gm)].map((match) => `${match[1] ?? ''}:${match[2] ?? ''}`);
    expect(upstreams).toEqual(apis.map(([name]) => `${name}:3000`));
  });
});
