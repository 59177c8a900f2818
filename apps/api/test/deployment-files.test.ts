import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import proxyAddr from 'proxy-addr';
import { parse } from 'yaml';
import { KEEP_ALIVE_TIMEOUT_MS } from '../src/server.js';
import { SETTINGS, readConfig } from '../src/settings/config.js';
import { API_ROOT, REPO_ROOT } from './support/processes.js';

// What can be checked of the production files without a Docker engine: that they parse, agree
// with each other, and start the service the way docs/operating.md and `pnpm start` do.
const read = (...path: string[]) => readFileSync(join(REPO_ROOT, ...path), 'utf8');

interface ComposeService {
  build?: string;
  image?: string;
  pull_policy?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  healthcheck?: { test: string[]; interval: string; timeout: string; start_period: string; retries: number };
  stop_grace_period?: string;
  depends_on?: Record<string, { condition: string }>;
  networks?: Record<string, { ipv4_address?: string }>;
}
// Merge keys (`<<: *api`), as Docker Compose reads them.
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
  networks?: Record<string, { ipam?: { config?: { subnet?: string }[] } }>;
};
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

/** The services that run the image the Dockerfile builds: the one that builds it, and those that run its tag. */
const builder = Object.values(compose.services).find((service) => service.build === '.');
const apiServices = () => Object.entries(compose.services).filter(([, service]) => service.image !== undefined && service.image === builder?.image);
const site = read('deploy', 'petstore.conf');

describe('docker-compose.yml', () => {
  const apis = apiServices();

  it('builds the image once, which every instance runs, never pulled from a registry', () => {
    expect(Object.values(compose.services).filter((service) => service.build !== undefined)).toHaveLength(1);
    expect(builder?.image).toMatch(/^[a-z0-9-]+:[\w.-]+$/);
    for (const [name, service] of apis) if (service.build === undefined) expect([name, service.pull_policy]).toEqual([name, 'never']);
  });

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

  it('puts a load balancer in front that spreads requests over both instances, with deploy/ as a team runs it outside Docker', () => {
    const balancer = compose.services['load-balancer'];
    // nginx.conf whole, the site and the certificate beside it, where nginx.conf looks for them.
    expect(balancer?.volumes).toEqual(['./deploy/nginx.conf:/etc/nginx/nginx.conf:ro', './deploy/petstore.conf:/etc/nginx/petstore.conf:ro', './deploy/tls:/etc/nginx/tls:ro']);
    expect(read('deploy', 'nginx.conf')).toMatch(/^\s*include petstore\.conf;$/m);
    expect([...site.matchAll(/^\s*ssl_certificate(?:_key)? (\S+);$/gm)].map((match) => match[1])).toEqual(['tls/fullchain.pem', 'tls/privkey.pem']);
    const upstreams = [...site.matchAll(/^\s*server ([\w.-]+):(\d+)/gm)].map((match) => `${match[1] ?? ''}:${match[2] ?? ''}`);
    expect(upstreams).toEqual(apis.map(([name]) => `${name}:3000`));
  });

  it('publishes HTTPS and the plain HTTP that redirects to it, and documents the https:// address', () => {
    expect(compose.services['load-balancer']?.ports).toEqual(['443:443', '80:80']);
    expect([...site.matchAll(/^\s*listen (.*);$/gm)].map((match) => match[1])).toEqual(['80', '443 ssl']);
    for (const [, service] of apis) expect(readConfig(service.environment ?? {}).publicBaseUrl).toBe('https://localhost/v1');
  });

  it("believes X-Forwarded-For from nginx's own address only, which nginx writes itself", () => {
    const balancer = compose.services['load-balancer'];
    const address = balancer?.networks?.default?.ipv4_address ?? '';
    const subnet = compose.networks?.default?.ipam?.config?.[0]?.subnet ?? '';
    // The address is fixed inside the project's own range, so no other container can take it.
    expect(proxyAddr.compile(subnet)(address, 0)).toBe(true);
    for (const [, service] of apis) expect(readConfig(service.environment ?? {}).trustProxy).toEqual([address]);
    expect(site).toMatch(/^\s*proxy_set_header X-Forwarded-For \$remote_addr;$/m);
  });
});

/** A Docker duration (`15s`, `1m30s`, `500ms`) in milliseconds. */
const milliseconds = (duration: string | undefined) => {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };
  const parts = [...(duration ?? '').matchAll(/(\d+)(ms|h|m|s)/g)];
  if (parts.map(([part]) => part).join('') !== duration) throw new Error(`not a Docker duration: ${String(duration)}`);
  return parts.reduce((sum, [, count, unit]) => sum + Number(count) * (units[unit ?? ''] ?? Number.NaN), 0);
};
/** The body of nginx's `block` (`upstream petstore`, `location @idempotent`), one level of braces deep. */
const nginxBlock = (block: string) => new RegExp(`${block} \\{([^}]*)\\}`).exec(site)?.[1] ?? '';
const operating = read('docs', 'operating.md');
const rollingUpdates = operating.slice(operating.indexOf('## Rolling updates'));
/** The variables the stop is made of, by the names the service reads. */
const STOP = [SETTINGS.shutdownDelayMs.variable, SETTINGS.shutdownGraceMs.variable, SETTINGS.shutdownIdleMs.variable];
/** The longest a stop can take: the delay, then the longer of the grace and the idle bound. */
const longestStopMs = ({ shutdownDelayMs, shutdownGraceMs, shutdownIdleMs }: ReturnType<typeof readConfig>) =>
  shutdownDelayMs + Math.max(shutdownGraceMs, shutdownIdleMs);

describe('a rolling update with docker-compose.yml', () => {
  const apis = apiServices();
  const balancer = compose.services['load-balancer'];

  it("checks each instance's /readyz with the Dockerfile's own health check", () => {
    const [options = '', command = ''] = instruction('HEALTHCHECK').at(-1)?.split(' CMD ') ?? [];
    const script = /^node -e "(.*)"$/.exec(command)?.[1];
    expect(script).toContain("'http://127.0.0.1:3000/readyz'");
    const option = (name: string) => new RegExp(`--${name}=(\\S+)`).exec(options)?.[1];
    for (const [, { healthcheck }] of apis) {
      expect(healthcheck?.test).toEqual(['CMD', 'node', '-e', script]);
      expect([healthcheck?.interval, healthcheck?.timeout, healthcheck?.start_period, String(healthcheck?.retries)]).toEqual([
        option('interval'),
        option('timeout'),
        option('start-period'),
        option('retries'),
      ]);
    }
  });

  it('starts nginx once both instances are healthy', () => {
    expect(balancer?.depends_on).toEqual(Object.fromEntries(apis.map(([name]) => [name, { condition: 'service_healthy' }])));
  });

  it("lets each instance's stop run its whole course before Docker kills it", () => {
    for (const [, service] of apis) {
      expect(milliseconds(service.stop_grace_period)).toBeGreaterThan(longestStopMs(readConfig(service.environment ?? {})));
    }
    for (const variable of STOP) expect(rollingUpdates).toContain(`\`${variable}\``);
  });

  it('is given in docs/operating.md for each instance in turn, nginx reloaded after each', () => {
    const commands = /```sh\n([^`]*)```/.exec(rollingUpdates)?.[1] ?? '';
    expect(commands).toContain(`for api in ${apis.map(([name]) => name).join(' ')}; do`);
    expect(commands).toContain('up -d --no-deps --wait "$api"');
    expect(commands).toContain('exec load-balancer nginx -s reload');
    // The image is built once, before the loop, by the one service that builds it.
    expect(commands.split('\n')[0]).toMatch(/^docker compose build\s/);
  });
});

describe('deploy/petstore.conf', () => {
  it('passes over an instance that refuses connections without marking it failed, which left no instance for a rolling restart', () => {
    const servers = [...nginxBlock('upstream petstore').matchAll(/^\s*server (.*);$/gm)].map((match) => match[1] ?? '');
    expect(servers.length).toBeGreaterThan(1);
    for (const server of servers) expect(server).toMatch(/ max_fails=0(\s|$)/);
  });

  it("closes its idle connections to an instance before the instance would, serving (Node's keep-alive timeout) or stopping (SHUTDOWN_IDLE_MS)", () => {
    const seconds = Number(/^\s*keepalive_timeout (\d+)s;$/m.exec(nginxBlock('upstream petstore'))?.[1]);
    expect(seconds * 1_000).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS);
    for (const [, service] of apiServices()) {
      expect(seconds * 1_000).toBeLessThan(readConfig(service.environment ?? {}).shutdownIdleMs);
    }
  });

  it('sends a request twice only when it is a read, or a POST carrying an Idempotency-Key', () => {
    const retried = [...site.matchAll(/proxy_next_upstream ([^;]*);/g)].map((match) => match[1]);
    expect(retried).toEqual(['error timeout', 'error timeout non_idempotent']);
    expect(nginxBlock('location @idempotent')).toContain('non_idempotent');
    expect(site).toMatch(/map "\$request_method \$http_idempotency_key" \$petstore_idempotent_post \{\s*"~\^POST \." 1;\s*default 0;\s*\}/);
  });
});

describe('a rolling update on Kubernetes, as docs/operating.md gives it', () => {
  interface Deployment {
    spec: {
      strategy: { rollingUpdate: { maxUnavailable: number; maxSurge: number } };
      template: {
        spec: {
          terminationGracePeriodSeconds: number;
          containers: { env: { name: string; value: string }[]; readinessProbe: { httpGet: { path: string; port: number } } }[];
        };
      };
    };
  }
  const deployment = parse(/```yaml\n([^`]*)```/.exec(rollingUpdates)?.[1] ?? '') as Deployment;
  const { template, strategy } = deployment.spec;
  const [container] = template.spec.containers;
  const environment = Object.fromEntries((container?.env ?? []).map(({ name, value }) => [name, value]));

  it('waits for /readyz, and stops an old pod only once a new one is ready', () => {
    expect(container?.readinessProbe.httpGet).toEqual({ path: '/readyz', port: Number(/PORT=(\d+)/.exec(instruction('ENV').join(' '))?.[1]) });
    expect(strategy.rollingUpdate).toEqual({ maxUnavailable: 0, maxSurge: 1 });
  });

  it('serves on after the signal while the endpoints learn of it, and stops before the kubelet kills it', () => {
    const config = readConfig(environment);
    expect(Object.keys(environment)).toEqual([SETTINGS.shutdownDelayMs.variable]);
    expect(config.shutdownDelayMs).toBeGreaterThan(0);
    expect(template.spec.terminationGracePeriodSeconds * 1_000).toBeGreaterThan(longestStopMs(config));
  });
});
