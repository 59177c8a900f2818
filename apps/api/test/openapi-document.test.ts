import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMITTED_DOCUMENT_PATH, canonicalDocument } from '../src/openapi/committed-document.js';
import { type TestServer, startTestServer } from '../src/testing/index.js';
import { call } from './support/http.js';
import { API_ROOT, REPO_ROOT, collect, spawnCommand } from './support/processes.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    PUBLIC_BASE_URL: 'https://petstore.example/v1',
    STAGING_BASE_URL: 'https://staging.petstore.example/v1',
  });
});
afterAll(() => server.dispose());

describe('GET /v1/openapi.json', () => {
  it('serves the document without a key, with the servers from the environment', async () => {
    const response = await call(server, '/v1/openapi.json', { key: null });
    expect(response.status).toBe(200);
    const document = (await response.json()) as { servers: unknown };
    expect(document.servers).toEqual([
      { url: 'https://petstore.example/v1', description: 'Production' },
      { url: 'https://staging.petstore.example/v1', description: 'Staging' },
    ]);
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

  it('passes spectral lint with the spectral:oas ruleset, warnings included', async () => {
    const spectral = spawnCommand(join(API_ROOT, 'node_modules', '.bin', 'spectral'), [
      'lint',
      COMMITTED_DOCUMENT_PATH,
      '--ruleset',
      join(REPO_ROOT, '.spectral.yaml'),
      '--fail-severity',
      'hint',
    ]);
    const result = await collect(spectral);
    expect(result.stdout + result.stderr).toMatch(/No results with a severity of 'hint' or higher found!/);
    expect(result.code).toBe(0);
  });
});
