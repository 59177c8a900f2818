import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REST_PREFIX, operations } from '@petstore/core';
import { validate } from '@readme/openapi-parser';
import { describe, expect } from 'vitest';
import { COMMITTED_DOCUMENT_PATH, canonicalDocument } from '../src/openapi/committed-document.js';
import { it } from '../src/testing/index.js';
import { call } from './support/http.js';
import { API_ROOT, REPO_ROOT, collect, spawnCommand } from './support/processes.js';

it.override({
  serverEnv: {
    PUBLIC_BASE_URL: 'https://petstore.example/v1',
    STAGING_BASE_URL: 'https://staging.petstore.example/v1',
  },
});

describe('GET /v1/openapi.json', () => {
  it('serves the document without a key, with the servers from the environment', async ({ server }) => {
    const response = await call(server, '/v1/openapi.json', { key: null });
    expect(response.status).toBe(200);
    const document = (await response.json()) as { servers: unknown };
    expect(document.servers).toEqual([
      { url: 'https://petstore.example/v1', description: 'Production', 'x-internal': false },
      { url: 'https://staging.petstore.example/v1', description: 'Staging', 'x-internal': false },
    ]);
  });
});

describe('the Error body as sent', () => {
  // `call` checks every answer against the served document, whose Error.message has a maxLength.
  it('keeps its message within the documented maxLength for a long invalid petId (400)', async ({ server }) => {
    const response = await call(server, `/v1/pets/${'9'.repeat(5_000)}`);
    expect(response.status).toBe(400);
  });

  it('keeps its message within the documented maxLength for a long unknown path (404)', async ({ server }) => {
    const response = await call(server, `/v1/${'a'.repeat(5_000)}`, { method: 'UNSUBSCRIBE' });
    expect(response.status).toBe(404);
  });
});

describe('the RateLimit headers as sent', () => {
  // Checked against the served document by `call`, like every answer.
  it('a 401 reports the quota of failed authentications from the client address, and so does the 429 once it is spent', async ({ startServer }) => {
    const throttled = await startServer({ AUTH_FAILURES_PER_MINUTE: '1' });
    const refused = await call(throttled, '/v1/pets', { key: 'pst_not_a_key' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('ratelimit-policy')).toBe('"per-address";q=1;w=60');
    const spent = await call(throttled, '/v1/pets', { key: 'pst_not_a_key' });
    expect(spent.status).toBe(429);
    expect(spent.headers.get('ratelimit-policy')).toBe('"per-address";q=1;w=60');
  });
});

describe('the committed openapi.json', () => {
  it('is what `pnpm openapi` generates now (run it after changing a procedure or schema)', () => {
    expect(readFileSync(COMMITTED_DOCUMENT_PATH, 'utf8')).toBe(canonicalDocument());
  });

  it('is valid OpenAPI for an independent validator', async () => {
    const result = await validate(COMMITTED_DOCUMENT_PATH);
    expect(result).toMatchObject({ valid: true, warnings: [] });
  });

  it('passes spectral lint with spectral:oas and the OWASP API Security ruleset, warnings included', async () => {
    const result = await lint(COMMITTED_DOCUMENT_PATH);
    expect(result.stdout + result.stderr).toMatch(/No results with a severity of 'hint' or higher found!/);
    expect(result.code).toBe(0);
  });

  it('would fail that lint on a problem the OWASP ruleset finds: an unbounded page', async () => {
    const document = JSON.parse(readFileSync(COMMITTED_DOCUMENT_PATH, 'utf8')) as { components: { schemas: { Pets: object } } };
    delete (document.components.schemas.Pets as { maxItems?: number }).maxItems;
    const folder = mkdtempSync(join(tmpdir(), 'petstore-openapi-'));
    try {
      writeFileSync(join(folder, 'openapi.json'), JSON.stringify(document));
      const result = await lint(join(folder, 'openapi.json'));
      expect(result.stdout).toMatch(/owasp:api4:2023-array-limit .* components\.schemas\.Pets/);
      expect(result.code).not.toBe(0);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

/** `spectral lint` with the repository's ruleset, failing on anything it reports, hints included. */
const lint = (path: string) =>
  collect(
    spawnCommand(join(API_ROOT, 'node_modules', '.bin', 'spectral'), [
      'lint',
      path,
      '--ruleset',
      join(REPO_ROOT, '.spectral.yaml'),
      '--fail-severity',
      'hint',
    ]),
  );

/** `text` as a regular expression that matches it literally. */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe("the interface's description (docs/http-interface.md)", () => {
  it('has a row for every operation: its REST method and path, its tRPC kind and its scope', () => {
    const described = readFileSync(join(REPO_ROOT, 'docs', 'http-interface.md'), 'utf8');
    const rows = Object.entries(operations).map(([name, { type, meta }]) => {
      const rest = meta.openapi ? `\`${meta.openapi.method} ${REST_PREFIX}${meta.openapi.path}\`` : '';
      return new RegExp(`^\\| [^|]+ \\| ${escape(rest)} \\| \`${name}\` \\(${type}\\) \\| \`${meta.scope}\` \\|$`, 'm');
    });
    for (const row of rows) expect(described).toMatch(row);
  });
});
