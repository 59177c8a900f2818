import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { describe, expect } from 'vitest';
import { TEST_ENGINE, it } from '../src/testing/index.js';
import { call } from './support/http.js';

// Each vitest project must really exercise its engine: an animal created over HTTP is looked
// for directly in that engine's storage.
describe(`the ${TEST_ENGINE} project`, () => {
  it('stores what the service creates in its own engine', async ({ server }) => {
    const created = (await (await call(server, '/v1/pets', { method: 'POST', json: { name: 'Probe', categoryId: 7 } })).json()) as { id: number };
    let stored: unknown;
    if (TEST_ENGINE === 'postgres') {
      const client = new pg.Client({ connectionString: server.storageEnv.DATABASE_URL });
      await client.connect();
      stored = (await client.query('select name from pets where id = $1', [created.id])).rows[0];
      await client.end();
    } else {
      const sqlite = new BetterSqlite3(server.storageEnv.PETSTORE_DB ?? '', { readonly: true });
      stored = sqlite.prepare('select name from pets where id = ?').get(created.id);
      sqlite.close();
    }
    expect(stored).toEqual({ name: 'Probe' });
  });
});
