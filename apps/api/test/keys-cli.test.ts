import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { pino } from 'pino';
import { readConfig, startServer } from '../src/index.js';
import { VERSION } from '../src/settings/version.js';
import { type TestStorage, createTestStorage } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';
import { KEYS_COMMAND } from '../src/cli/keys-command.js';
import { REPO_ROOT, collect, spawnCommand } from './support/processes.js';

let storage: TestStorage;
beforeEach(async () => {
  storage = await createTestStorage();
});
afterEach(() => storage.dispose());

/** The line every command that touches a store writes first on stderr: which store it used. */
const STORE_LINE = /^Store: (SQLite file \/\S+ \(DATABASE_URL unset[^)]*\)|PostgreSQL database \S+ on \S+ as \S+ \(DATABASE_URL\))\n/;

/** The CLI as apps/api's `keys` bin runs it; `stderr` without the store's line, which `store` holds. */
const keys = async (...args: string[]) => {
  const finished = await collect(spawnCommand('bin/keys', args, storage.env));
  const store = STORE_LINE.exec(finished.stderr)?.[0] ?? '';
  return { ...finished, store, stderr: finished.stderr.slice(store.length) };
};

/** As users type it, from the repository root: `npx pnpm keys …`. */
const keysFromRoot = async (...args: string[]) => {
  const finished = await collect(spawnCommand('sh', ['-c', `${KEYS_COMMAND} "$@"`, 'sh', ...args], storage.env, REPO_ROOT));
  // npm warns about settings in the user's own ~/.npmrc; that is the machine, not this CLI.
  return { ...finished, stderr: finished.stderr.replace(/^npm warn .*\n/gm, '').replace(STORE_LINE, '') };
};

const USAGE = /^Usage:\n {2}npx pnpm keys create <name>/;

describe('the keys CLI', () => {
  it('is scriptable from the repository root: the key alone on the last line', async () => {
    const shell = spawnCommand('sh', ['-c', `${KEYS_COMMAND} create ci | tail -1`], storage.env, REPO_ROOT);
    const { code, stdout } = await collect(shell);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^pst_[0-9a-f]{12}_[0-9A-Za-z]{49}\n$/);
  });

  it.each([[[]], [['help']], [['--help']], [['-h']], [['create', '--help']]])('prints its usage for %j and exits 0', async (args) => {
    const result = await keys(...args);
    expect([result.code, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toMatch(USAGE);
  });

  it('answers help and refusals from the repository root with its own words only, not pnpm\'s', async () => {
    const help = await keysFromRoot('--help');
    expect([help.code, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toMatch(USAGE);

    const wrong = await keysFromRoot('frobnicate');
    expect([wrong.code, wrong.stdout]).toEqual([2, '']);
    expect(wrong.stderr).toMatch(/^There is no "frobnicate" command: use create, list, rotate, revoke or log\.\n\nUsage:\n[^]*\.\n$/);
    expect(wrong.stderr).not.toMatch(/ELIFECYCLE|ERR_PNPM|Command failed/);

    const refused = await keysFromRoot('revoke', 'nobody');
    expect([refused.code, refused.stdout, refused.stderr]).toEqual([1, '', 'No key named "nobody" still works.\n']);
  });

  it.each([[['--version']], [['list', '--version']]])('prints its version for %j, the API package\'s, and touches no store', async (args) => {
    const result = await keys(...args);
    expect([result.code, result.stdout, result.stderr, result.store]).toEqual([0, `Petstore ${VERSION}\n`, '', '']);
  });

  it('names the store it used on every run that touches one, on stderr, and never a password', async () => {
    for (const args of [['create', 'ci'], ['list'], ['revoke', 'nobody'], ['log']]) {
      const result = await keys(...args);
      expect(result.store, args.join(' ')).toMatch(STORE_LINE);
      if (storage.env.PETSTORE_DB !== undefined) expect(result.store).toContain(storage.env.PETSTORE_DB);
    }
    if (storage.env.DATABASE_URL !== undefined) {
      // PostgreSQL's test server trusts any password; the line must still leave it out.
      const url = new URL(storage.env.DATABASE_URL);
      url.username = 'postgres';
      url.password = 'not-to-be-printed';
      const withPassword = await collect(spawnCommand('bin/keys', ['list'], { ...storage.env, DATABASE_URL: url.href }));
      expect(withPassword.code).toBe(0);
      expect(withPassword.stderr).toMatch(new RegExp(`^Store: PostgreSQL database ${url.pathname.slice(1)} on ${url.host} as postgres \\(DATABASE_URL\\)\n`));
      expect(withPassword.stderr + withPassword.stdout).not.toContain('not-to-be-printed');
    }
  });

  it('says so when it makes a new SQLite store, as a shell without DATABASE_URL would', async () => {
    // A file of its own, whatever the project's engine: where a shell without DATABASE_URL would put one.
    const folder = mkdtempSync(join(tmpdir(), 'petstore-keys-'));
    onTestFinished(() => {
      rmSync(folder, { recursive: true, force: true });
    });
    const file = join(folder, 'petstore.db');
    const made = await collect(spawnCommand('bin/keys', ['list'], { PETSTORE_DB: file }));
    expect(made.stderr).toMatch(new RegExp(`^Store: SQLite file ${file.replaceAll('.', '\\.')} \\(DATABASE_URL unset; no store was there: a new one is made\\)\n`));
    expect(existsSync(file)).toBe(true);
    const again = await collect(spawnCommand('bin/keys', ['list'], { PETSTORE_DB: file }));
    expect(again.stderr).toMatch(/^Store: SQLite file \S+ \(DATABASE_URL unset\)\n/);
  });

  it('refuses a store in memory, which would lose what it did', async () => {
    const result = await collect(spawnCommand('bin/keys', ['create', 'ci'], { PETSTORE_DB: ':memory:' }));
    expect([result.code, result.stdout]).toEqual([1, '']);
    expect(result.stderr).toBe('Store: SQLite in memory (PETSTORE_DB=:memory:, DATABASE_URL unset)\nPETSTORE_DB is :memory:, a store that lives only inside one process: what this command did would be gone when it ends.\n');
  });

  it('creates a key a server on the same database accepts, lists it without secrets, and revokes it', async () => {
    const created = await keys('create', 'ci');
    expect(created.code).toBe(0);
    const token = created.stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(token).toMatch(/^pst_/);

    // Held keys off: the CLI's revocation is seen on the next request.
    const running = await startServer(readConfig({ PORT: '0', OVERLOAD_DELAY_MS: '0', API_KEY_CACHE_MS: '0', ...storage.env }), pino({ level: 'silent' }));
    try {
      // The database already had a key, so the server created none of its own.
      expect(running.firstApiKey).toBeUndefined();
      const asCi = { url: running.url, apiKey: token };
      expect((await call(asCi, '/v1/pets')).status).toBe(200);

      const listed = await keys('list');
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/^ID\s+NAME\s+PREFIX\s+CREATED\s+EXPIRES\s+LAST USED\s+REVOKED\s+SCOPES\s+STATE\n1\s+ci\s+pst_[0-9a-f]{12}_\s.*\spets:read,pets:write\s+active\n/);
      expect(listed.stdout).not.toContain(token.slice(17));

      const revoked = await keys('revoke', 'ci');
      expect([revoked.code, revoked.stdout]).toEqual([0, 'Revoked key 1 "ci".\nRunning servers refuse it within API_KEY_CACHE_MS (2000 ms unless set otherwise).\n']);
      // The running server refuses the key at once; it was never restarted.
      await expectError(await call(asCi, '/v1/pets'), 401, 'UNAUTHORIZED');
      // The running server recorded the key's use; the list shows it, and now its revocation.
      expect((await keys('list')).stdout).toMatch(/\n1\s+ci\s+\S+\s+\S+\s+-\s+\d{4}-\d\d-\d\dT\S+\s+\d{4}-\d\d-\d\dT/);
    } finally {
      await running.close();
    }
  });

  it('creates a key with the scopes named, which a server enforces', async () => {
    const created = await keys('create', 'dashboard', '--scope', 'pets:read');
    expect(created.stdout).toMatch(/^Created key 1 "dashboard" \(pets:read\)\./);
    const token = created.stdout.trimEnd().split('\n').at(-1) ?? '';
    expect((await keys('create', 'both', '--scope', 'pets:write', '--scope', 'pets:read')).stdout).toMatch(/"both" \(pets:read, pets:write\)/);
    expect((await keys('list')).stdout).toMatch(/\n1\s+dashboard\s.*\spets:read\s+active\n2\s+both\s.*\spets:read,pets:write\s+active\n$/);

    const running = await startServer(readConfig({ PORT: '0', AUTH_FAILURES_PER_MINUTE: '0', OVERLOAD_DELAY_MS: '0', ...storage.env }), pino({ level: 'silent' }));
    try {
      const asDashboard = { url: running.url, apiKey: token };
      expect((await call(asDashboard, '/v1/pets')).status).toBe(200);
      await expectError(await call(asDashboard, '/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 1 } }), 403, 'FORBIDDEN');
    } finally {
      await running.close();
    }
  });

  it('revokes by id', async () => {
    await keys('create', 'first');
    const revoked = await keys('revoke', '1');
    expect(revoked.stdout).toBe('Revoked key 1 "first".\nRunning servers refuse it within API_KEY_CACHE_MS (2000 ms unless set otherwise).\n');
  });

  it('revokes by name every key of the name that still works, the rotated one in its grace too', async () => {
    await keys('create', 'team');
    await keys('rotate', 'team', '--grace', '1h');
    const revoked = await keys('revoke', 'team');
    expect([revoked.code, revoked.stdout]).toEqual([
      0,
      'Revoked key 1 "team".\nRevoked key 2 "team".\nRunning servers refuse them within API_KEY_CACHE_MS (2000 ms unless set otherwise).\n',
    ]);
    const again = await keys('revoke', 'team');
    expect([again.code, again.stderr]).toEqual([1, 'No key named "team" still works.\n']);
  });

  it('says, after revoking one key by id, which keys of its name still work', async () => {
    await keys('create', 'team');
    await keys('rotate', 'team', '--grace', '1h');
    const revoked = await keys('revoke', '2');
    expect(revoked.stdout).toMatch(
      /^Revoked key 2 "team"\.\nRunning servers refuse it within API_KEY_CACHE_MS \(2000 ms unless set otherwise\)\.\nKey 1 "team" still works \(rotating until \S+Z\): npx pnpm keys revoke 1 ends it, npx pnpm keys revoke team every key of the name\.\n$/,
    );
  });

  it('ends the old key at once with --grace 0', async () => {
    await keys('create', 'team');
    const rotated = await keys('rotate', 'team', '--grace', '0');
    expect(rotated.stdout).toMatch(/^Rotated key 1 "team": it no longer works; running servers refuse it within API_KEY_CACHE_MS \(2000 ms unless set otherwise\)\.\n/);
    expect((await keys('list')).stdout).toMatch(/\n1\s+team\s.*\srotated\n2\s+team\s.*\sactive \(replaces 1\)\n$/);
  });

  it.each([
    [['create'], 'create needs a <name>.'],
    [['create', 'a', 'b'], 'create takes one <name>, not "a" "b".'],
    [['list', 'all'], 'list takes no arguments, not "all".'],
    [['revoke'], 'revoke needs a <name-or-id>.'],
    [['frobnicate'], 'There is no "frobnicate" command: use create, list, rotate, revoke or log.'],
    [['list', '--expires', '30d'], '--expires goes with create only.'],
    [['create', 'ci', '--expires', '30x'], '--expires takes a duration such as 30d, 12h or 90m, not "30x".'],
    [['create', 'ci', '--expires', '-5d'], '--expires takes a duration such as 30d, 12h or 90m, not "-5d".'],
    [['create', 'ci', '--expires'], '--expires takes a duration such as 30d, 12h or 90m.'],
    [['create', 'ci', '--bogus'], "Unknown option '--bogus'."],
    [['create', 'ci', '--scope', 'pets:delete'], '--scope takes pets:read or pets:write, not "pets:delete".'],
    [['list', '--scope', 'pets:read'], '--scope goes with create only.'],
    [['rotate'], 'rotate needs a <name-or-id>.'],
    [['rotate', 'ci', '--grace', '1y'], '--grace takes a duration such as 24h, 2d or 30m, or 0 to end the old key now, not "1y".'],
    [['rotate', 'ci', '--grace', '00'], '--grace takes a duration such as 24h, 2d or 30m, or 0 to end the old key now, not "00".'],
    [['create', 'ci', '--grace', '1h'], '--grace goes with rotate only.'],
  ])('refuses %j with exit code 2, one line saying why, then its usage', async (args, reason) => {
    const result = await keys(...args);
    expect([result.code, result.stdout]).toEqual([2, '']);
    const [line, blank, ...usage] = result.stderr.split('\n');
    expect([line, blank]).toEqual([reason, '']);
    expect(usage.join('\n')).toMatch(USAGE);
  });

  it.each([
    [['create', '123'], /^Key name .*only digits.*\.\n$/],
    [['create', '--', '--scope'], /^Key name must start with a letter or a digit \(it would read as an option\)\.\n$/],
    [['create', '--', '-h'], /^Key name must start with a letter or a digit \(it would read as an option\)\.\n$/],
    [['revoke', 'nobody'], /^No key named "nobody" still works\.\n$/],
    [['revoke', '7'], /^No key has the id 7\.\n$/],
  ])('refuses %j with exit code 1 and one line', async (args, message) => {
    const result = await keys(...args);
    expect([result.code, result.stdout]).toEqual([1, '']);
    expect(result.stderr).toMatch(message);
  });

  it('refuses a second live key with the same name', async () => {
    await keys('create', 'ci');
    const again = await keys('create', 'ci');
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
  });
});
