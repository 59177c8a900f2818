import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKeys, openDatabase } from '@petstore/core';
import { VERSION } from '../src/settings/version.js';
import { TEST_ENGINE, type TestStorage, createTestStorage } from '../src/testing/index.js';
import { call } from './support/http.js';
import { builtEntry, collect, spawnCommand, spawnEntry, waitForOutput } from './support/processes.js';

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
    expect(started.printed).toMatch(
      TEST_ENGINE === 'sqlite' ? `"database":"SQLite file ${nestedSqliteFile()} (DATABASE_URL unset)"` : /"database":"PostgreSQL database \S+ on \S+ as \S+ \(DATABASE_URL\)"/,
    );
    expect((await call({ url: started.url, apiKey: started.key ?? '' }, '/healthz')).status).toBe(200);
    await started.stop();
  });

  it('says its version in the listen line, as /healthz does, and where the docs page is', async () => {
    const started = await startMain();
    const line = JSON.parse(started.printed.split('\n').find((text) => LISTENING.test(text)) ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({ version: VERSION, url: started.url, docs: `${started.url}/docs` });
    expect(await (await call({ url: started.url, apiKey: '' }, '/healthz')).json()).toEqual({ status: 'ok', version: VERSION });
    await started.stop();
  });

  it.each([[['--version']], [['--help', '--version']], [['-h']], [['--help']]])('answers %j and exits 0 without opening a store or a port', async (args) => {
    const result = await collect(spawnEntry('src/main.ts', args, { PORT: '0', PETSTORE_DB: nestedSqliteFile() }));
    expect([result.code, result.stderr]).toEqual([0, '']);
    if (args.includes('--help') || args.includes('-h')) {
      expect(result.stdout).toMatch(new RegExp(`^Petstore ${VERSION.replaceAll('.', '\\.')}: the pet store's HTTP service\\.`));
      for (const mentioned of ['/docs', '/v1/openapi.json', 'PORT (3000)', 'node dist/cli/keys.js help']) expect(result.stdout).toContain(mentioned);
    } else {
      expect(result.stdout).toBe(`Petstore ${VERSION}\n`);
    }
    expect(existsSync(nestedSqliteFile())).toBe(false);
  });

  it('refuses an argument it does not take with exit code 2, saying settings are variables', async () => {
    const result = await collect(spawnEntry('src/main.ts', ['--port', '3001'], { PORT: '0', PETSTORE_DB: nestedSqliteFile() }));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Unknown option '--port'\. Settings are environment variables, such as PORT=3001\.\n\nPetstore /);
    expect(existsSync(nestedSqliteFile())).toBe(false);
  });

  it('says in one line that its port is taken and which variable to set, and makes no key nobody is shown', async () => {
    const first = await startMain();
    const port = new URL(first.url).port;
    const second = join(folder, 'second.db');
    const result = await collect(spawnEntry('src/main.ts', [], { PORT: port, PETSTORE_DB: second }));
    await first.stop();
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`Port ${port} on 127.0.0.1 is taken by another process. Stop it, or set PORT to a free port (PORT=0 picks one).\n`);
    expect(result.stdout).not.toContain('pst_');
    const store = await openDatabase({ sqliteFile: second });
    expect(await createApiKeys(store.apiKeys).anyExist()).toBe(false);
    await store.close();
  });

  it('writes readable lines on a terminal and JSON lines anywhere else', async () => {
    // A pseudo-terminal, as a person's shell gives it: util-linux's script.
    const child = spawnCommand('script', ['-qec', `exec ${process.execPath} ${builtEntry('src/main.ts')}`, '/dev/null'], { PORT: '0', ...storageEnv() });
    const printed = await waitForOutput(child, /Petstore is listening/);
    child.kill('SIGTERM');
    await collect(child);
    const line = printed.split('\n').find((text) => text.includes('Petstore is listening')) ?? '';
    // eslint-disable-next-line no-control-regex -- the colours pino-pretty writes on a terminal
    expect(line.replace(/\u001b\[[0-9;]*m/g, '')).toMatch(new RegExp(`^\\[\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\] INFO: Petstore is listening \\{"version":"${VERSION.replaceAll('.', '\\.')}","url":"http://127\\.0\\.0\\.1:\\d+"`));
    expect(printed).not.toMatch(LISTENING);
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
