import { createApiKeys } from '@petstore/core';
import { describe, expect } from 'vitest';
import { type TestServer, it } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';
import { collect, spawnEntry } from './support/processes.js';

const keysCli = (server: TestServer, ...args: string[]) => collect(spawnEntry('src/cli/keys.ts', args, server.storageEnv));
const lastLine = (stdout: string) => stdout.trimEnd().split('\n').at(-1) ?? '';
const rowOf = (listed: string, id: number) => listed.split('\n').find((line) => line.startsWith(`${id} `)) ?? '';

/** Both transports, as the key's holder would call them. */
const statuses = async (server: TestServer, key: string) => [
  (await call(server, '/v1/pets', { key })).status,
  (await fetch(`${server.url}/trpc/listPets`, { headers: { Authorization: `Bearer ${key}` } })).status,
];

describe('keys rotate', () => {
  it('prints a new key with the same name and scopes; both work during the grace, and keys list shows both', async ({ server }) => {
    const created = await keysCli(server, 'create', 'mobile', '--scope', 'pets:read');
    const oldToken = lastLine(created.stdout);
    const oldId = Number(/Created key (\d+)/.exec(created.stdout)?.[1]);

    const rotated = await keysCli(server, 'rotate', 'mobile', '--grace', '2h');
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(new RegExp(`^Rotated key ${oldId} "mobile": it works until \\d{4}-\\d\\d-\\d\\dT\\S+Z\\.\\nIts replacement is key ${oldId + 1} \\(pets:read\\)\\.`));
    const newToken = lastLine(rotated.stdout);
    expect(newToken).toMatch(/^pst_/);
    expect(newToken).not.toBe(oldToken);

    expect(await statuses(server, oldToken)).toEqual([200, 200]);
    expect(await statuses(server, newToken)).toEqual([200, 200]);
    // Same scopes: the replacement may read, not write.
    await expectError(await call(server, '/v1/pets', { key: newToken, method: 'POST', json: { name: 'Rex', categoryId: 1 } }), 403, 'FORBIDDEN');

    const listed = (await keysCli(server, 'list')).stdout;
    expect(rowOf(listed, oldId)).toMatch(/^\d+\s+mobile\s.*\spets:read\s+rotating$/);
    expect(rowOf(listed, oldId + 1)).toMatch(new RegExp(`^\\d+\\s+mobile\\s.*\\spets:read\\s+active \\(replaces ${oldId}\\)$`));
  });

  it('refuses the old key once its grace has ended, in a server that is already running', async ({ server }) => {
    const { token: oldToken } = await createApiKeys(server.db.apiKeys).create('batch');
    // The rotation happened three hours ago, with a grace of two: the test sets the clock.
    const threeHoursAgo = new Date(Date.now() - 3 * 3_600_000);
    const { token: newToken, replaced } = await createApiKeys(server.db.apiKeys, { now: () => threeHoursAgo }).rotate('batch', { graceMs: 2 * 3_600_000 });

    await expectError(await call(server, '/v1/pets', { key: oldToken }), 401, 'UNAUTHORIZED');
    expect(await statuses(server, oldToken)).toEqual([401, 401]);
    expect(await statuses(server, newToken)).toEqual([200, 200]);
    expect(rowOf((await keysCli(server, 'list')).stdout, replaced.id)).toMatch(/\s+rotated$/);
  });

  it('keeps the audit trail in the database, in order, and writes each entry as a JSON log line without the secret', async ({ server }) => {
    const created = await keysCli(server, 'create', 'kiosk');
    const audit = JSON.parse(created.stderr.trim().split('\n').at(-1) ?? '{}') as { msg?: string; audit?: Record<string, unknown> };
    expect(audit).toMatchObject({ msg: 'API key created', audit: { event: 'created', keyName: 'kiosk' } });
    const rotated = await keysCli(server, 'rotate', 'kiosk');
    const newToken = lastLine(rotated.stdout);
    // The running server sees the replacement's first use, once.
    expect(await statuses(server, newToken)).toEqual([200, 200]);
    await keysCli(server, 'revoke', 'kiosk');

    const logged = await keysCli(server, 'log', 'kiosk');
    expect(logged.code).toBe(0);
    const [header, ...rows] = logged.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^AT\s+EVENT\s+KEY\s+NAME\s+DETAIL$/);
    expect(rows.map((row) => row.split(/\s{2,}/).slice(1, 4))).toEqual([
      ['created', expect.any(String), 'kiosk'],
      ['rotated', expect.any(String), 'kiosk'],
      ['first_use', expect.any(String), 'kiosk'],
      // By name: the replaced key, still in its grace, and its replacement.
      ['revoked', expect.any(String), 'kiosk'],
      ['revoked', expect.any(String), 'kiosk'],
    ]);
    for (const output of [created.stderr, rotated.stderr, logged.stdout]) {
      expect(output).not.toContain(lastLine(created.stdout).slice(17));
      expect(output).not.toContain(newToken.slice(17));
    }
  });

  it('refuses to rotate a revoked key', async ({ server }) => {
    const created = await keysCli(server, 'create', 'retired');
    const id = /Created key (\d+)/.exec(created.stdout)?.[1] ?? '';
    await keysCli(server, 'revoke', 'retired');
    const refused = await keysCli(server, 'rotate', id);
    expect([refused.code, refused.stdout]).toEqual([1, '']);
    expect(refused.stderr).toMatch(new RegExp(`^Store: .*\\n${`Key ${id} ("retired") is revoked; a revoked key cannot be rotated.`.replace(/[()]/g, '\\$&')}\\n$`));
    expect((await keysCli(server, 'rotate', 'retired')).stderr).toMatch(/^Store: .*\nNo current key has the name or id "retired"\.\n$/);
    await expectError(await call(server, '/v1/pets', { key: lastLine(created.stdout) }), 401, 'UNAUTHORIZED');
  });
});
