import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as SqliteOnly from './sqlite-only.js';

let loads = 0;
/**
 * The module as a run with this variable would read it: it reads the variable once, on import. Each
 * load is a module of its own (a query on its path), so the one the other test files of this worker
 * share keeps reading the run's own variable.
 */
const loadedWith = async (sqliteOnly: string | undefined) => {
  vi.stubEnv('PETSTORE_TEST_SQLITE_ONLY', sqliteOnly);
  loads += 1;
  return (await import(/* @vite-ignore */ `./sqlite-only.js?load=${String(loads)}`)) as typeof SqliteOnly;
};

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('a SQLite-only run', () => {
  it('skips, refuses and leaves out what needs a server, saying which', async () => {
    vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const run = await loadedWith('1');
    const skip = vi.fn();
    run.skipWithout('PostgreSQL', skip);
    expect(skip).toHaveBeenCalledWith('needs PostgreSQL, which a SQLite-only run goes without');
    expect(() => {
      run.refuseWithout('Redis');
    }).toThrow(/needs Redis.*leave it out/);
    expect(run.leftOutWithout({ Chromium: ['test/browser.test.ts'], Redis: [] })).toEqual(['test/browser.test.ts']);
    expect(run.keptWith('PostgreSQL', 'the postgres project')).toBe(false);
    expect(run.isSqliteOnlyRun()).toBe(true);
  });
});

describe('any other run', () => {
  it.for([undefined, '', '0'])('keeps everything with the variable at %j', async (value) => {
    const run = await loadedWith(value);
    const skip = vi.fn();
    run.skipWithout('PostgreSQL', skip);
    expect(skip).not.toHaveBeenCalled();
    expect(() => {
      run.refuseWithout('Chromium');
    }).not.toThrow();
    expect(run.leftOutWithout({ Chromium: ['test/browser.test.ts'] })).toEqual([]);
    expect(run.isSqliteOnlyRun()).toBe(false);
  });
});
