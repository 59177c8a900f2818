import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { readConfig, startServer } from '../src/index.js';
import { type TestStorage, createTestStorage } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';
import { REPO_ROOT, collect, spawnCommand, spawnEntry } from './support/processes.js';

let storage: TestStorage;
beforeEach(async () => {
  storage = await createTestStorage();
});
afterEach(() => storage.dispose());

const keys = (...args: string[]) => collect(spawnEntry('src/cli/keys.ts', args, storage.env));

describe('the keys CLI', () => {
  it('is scriptable from the repository root: the key alone on the last line', async () => {
    const shell = spawnCommand('sh', ['-c', 'pnpm --silent keys create ci | tail -1'], storage.env, REPO_ROOT);
    const { code, stdout } = await collect(shell);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^pst_[0-9a-f]{12}_[A-Za-z0-9_-]{43}\n$/);
  });

  it('creates a key a server on the same database accepts, lists it without secrets, and revokes it', async () => {
    const created = await keys('create', 'ci');
    expect(created.code).toBe(0);
    const token = created.stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(token).toMatch(/^pst_/);

    const running = await startServer(readConfig({ PORT: '0', ...storage.env }), pino({ level: 'silent' }));
    try {
      // The database already had a key, so the server created none of its own.
      expect(running.firstApiKey).toBeUndefined();
      const asCi = { url: running.url, apiKey: token };
      expect((await call(asCi, '/v1/pets')).status).toBe(200);

      const listed = await keys('list');
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/^ID\s+NAME\s+PREFIX\s+CREATED\s+EXPIRES\s+LAST USED\s+REVOKED\n1\s+ci\s+pst_[0-9a-f]{12}_\s/);
      expect(listed.stdout).not.toContain(token.slice(17));

      const revoked = await keys('revoke', 'ci');
      expect([revoked.code, revoked.stdout]).toEqual([0, 'Revoked key 1 "ci".\n']);
      // The running server refuses the key at once; it was never restarted.
      await expectError(await call(asCi, '/v1/pets'), 401, 'UNAUTHORIZED');
      // The running server recorded the key's use; the list shows it, and now its revocation.
      expect((await keys('list')).stdout).toMatch(/\n1\s+ci\s+\S+\s+\S+\s+-\s+\d{4}-\d\d-\d\dT\S+\s+\d{4}-\d\d-\d\dT/);
    } finally {
      await running.close();
    }
  });

  it('revokes by id', async () => {
    await keys('create', 'first');
    const revoked = await keys('revoke', '1');
    expect(revoked.stdout).toBe('Revoked key 1 "first".\n');
  });

  it.each([
    [[], 2, /Usage/],
    [['create'], 2, /Usage/],
    [['create', 'a', 'b'], 2, /Usage/],
    [['frobnicate'], 2, /Usage/],
    [['create', '123'], 1, /only digits/],
    [['revoke', 'nobody'], 1, /No live key/],
  ])('answers %j with exit code %i and a message', async (args, code, message) => {
    const result = await keys(...args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('refuses a second live key with the same name', async () => {
    await keys('create', 'ci');
    const again = await keys('create', 'ci');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
  });
});
