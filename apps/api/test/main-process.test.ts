import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TEST_ENGINE, type TestStorage, createTestStorage } from '../src/testing/index.js';
import { call } from './support/http.js';
import { collect, spawnEntry, waitForOutput } from './support/processes.js';

let folder: string;
let storage: TestStorage;
beforeEach(async () => {
  folder = mkdtempSync(join(tmpdir(), 'petstore-main-'));
  storage = await createTestStorage();
});
afterEach(async () => {
  rmSync(folder, { recursive: true, force: true });
  await storage.dispose();
});

/** On SQLite, a file in a folder that does not exist yet: the service must create both. */
const nestedSqliteFile = () => join(folder, 'data', 'petstore.db');
const storageEnv = () => (TEST_ENGINE === 'sqlite' ? { PETSTORE_DB: nestedSqliteFile() } : storage.env);

const LISTENING = /"msg":"Petstore is listening"/;

/** Starts `src/main.ts` as `pnpm dev` would, on any free port, inside the temporary folder. */
const startMain = async (env: NodeJS.ProcessEnv = {}) => {
  const child = spawnEntry('src/main.ts', [], { PORT: '0', ...storageEnv(), ...env });
  const printed = await waitForOutput(child, LISTENING);
  const port = /"port":(\d+)/.exec(printed)?.[1];
  const key = /^ {2}(pst_\S+)$/m.exec(printed)?.[1];
  const stopped = collect(child);
  const stop = async () => {
    child.kill('SIGTERM');
    return stopped;
  };
  return { url: `http://127.0.0.1:${port ?? ''}`, key, printed, stop };
};

describe('the service process', () => {
  it('creates its database, prints a first key once, and keeps data across a restart', async () => {
    const first = await startMain();
    if (TEST_ENGINE === 'sqlite') expect(existsSync(nestedSqliteFile())).toBe(true);
    expect(first.printed).toMatch(/first API key/);
    expect(first.key).toMatch(/^pst_/);
    const server = { url: first.url, apiKey: first.key ?? '' };
    const created = await call(server, '/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 4 } });
    expect(created.status).toBe(201);
    const rex: unknown = await created.json();
    const firstExit = await first.stop();
    expect(firstExit.code).toBe(0);
    expect(firstExit.stdout).toMatch(/"msg":"stopped"/);

    const second = await startMain();
    expect(second.key).toBeUndefined();
    const again = { url: second.url, apiKey: first.key ?? '' };
    expect(await (await call(again, '/v1/pets')).json()).toEqual([rex]);
    expect((await second.stop()).code).toBe(0);
  });

  it('with FIRST_API_KEY=hint, as the image runs, makes no key and logs how to make one', async () => {
    const hinted = await startMain({ FIRST_API_KEY: 'hint' });
    expect(hinted.key).toBeUndefined();
    expect(hinted.printed).toMatch(/"level":40,.*"msg":"No API key exists yet: make one with npx pnpm keys create <name>/);
    expect((await hinted.stop()).code).toBe(0);
    // Nothing was made in its place: the next start on the default still finds no key, and prints one.
    const printing = await startMain();
    expect(printing.key).toMatch(/^pst_/);
    await printing.stop();
  });

  it('logs the port it chose when PORT is 0, and the store it opened', async () => {
    const started = await startMain();
    expect(started.printed).toMatch(/"url":"http:\/\/127\.0\.0\.1:\d+"/);
    expect(started.printed).toContain(TEST_ENGINE === 'sqlite' ? `"database":"${nestedSqliteFile()}"` : '"database":"PostgreSQL (DATABASE_URL)"');
    expect((await call({ url: started.url, apiKey: started.key ?? '' }, '/healthz')).status).toBe(200);
    await started.stop();
  });

  it.each([
    ['PORT', 'abc', /PORT must be a port number/],
    ['PORT', '70000', /PORT must be a port number/],
    ['PUBLIC_BASE_URL', 'not a url', /PUBLIC_BASE_URL/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL/],
    ['TRUST_PROXY', '10.0.0.0/99', /TRUST_PROXY must list addresses/],
    ['AUTH_FAILURES_PER_MINUTE', 'many', /AUTH_FAILURES_PER_MINUTE must be a whole number/],
  ])('refuses to start with %s=%s and says why', async (name, value, message) => {
    const result = await collect(spawnEntry('src/main.ts', [], { PETSTORE_DB: join(folder, 'p.db'), [name]: value }));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
  });
});
