import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/** The driver the store opens its file with: the very binary this package resolves. */
const DRIVER = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * Statements become garbage while optimized code allocates, as they do in the service (a
 * migration's, a key's last use) while requests are answered. A collection started from optimized
 * code's allocation runs with no current context; a driver whose statements remove a per-object
 * cleanup hook from their destructor (better-sqlite3 12 built against Node 24's `node::ObjectWrap`)
 * aborts the process there with `Assertion failed: (env) != nullptr`. Runs in a process of its
 * own, on the Node that runs the tests, so an abort fails this test and not the run.
 */
const STATEMENTS_COLLECTED_UNDER_ALLOCATION = `
  const Database = require(${JSON.stringify(DRIVER)});
  const db = new Database(':memory:');
  const allocate = (n) => { let last; for (let i = 0; i < n; i++) last = [i, i + 1]; return last; };
  for (let round = 0; round < 300; round++) {
    for (let i = 0; i < 20; i++) db.prepare('select 1');
    allocate(5000);
  }
  db.close();
  console.log('collected', 300 * 20, 'statements on', process.version);
`;

describe('the SQLite driver on this Node', () => {
  it('survives its statements being collected while optimized code allocates', () => {
    const child = spawnSync(process.execPath, ['-e', STATEMENTS_COLLECTED_UNDER_ALLOCATION], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: child.status, signal: child.signal, stderr: child.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
    expect(child.stdout).toContain(`collected 6000 statements on ${process.version}`);
  });
});
