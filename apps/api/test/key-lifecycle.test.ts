import { createApiKeys } from '@petstore/core';
import { describe, expect } from 'vitest';
import { type TestServer, it } from '../src/testing/index.js';
import { call, expectError } from './support/http.js';
import { collect, spawnEntry } from './support/processes.js';

const keysCli = (server: TestServer, ...args: string[]) => collect(spawnEntry('src/cli/keys.ts', args, server.storageEnv));

describe('key lifecycle', () => {
  it('refuses a key the moment it expires, in a server that is already running', async ({ server }) => {
    const { token } = await createApiKeys(server.db.apiKeys).create('brief', { expiresAt: new Date(Date.now() + 1_500) });
    expect((await call(server, '/v1/pets', { key: token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    await expectError(await call(server, '/v1/pets', { key: token }), 401, 'UNAUTHORIZED');
    expect((await call(server, '/trpc/listPets', { key: token })).status).toBe(401);
  });

  it('creates keys that expire from the CLI and lists their expiry and last use', async ({ server }) => {
    const created = await keysCli(server, 'create', 'monthly', '--expires', '30d');
    expect(created.code).toBe(0);
    const token = created.stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(created.stdout).toMatch(/valid until \d{4}-\d\d-\d\dT/);
    expect((await call(server, '/v1/pets', { key: token })).status).toBe(200);

    const listed = (await keysCli(server, 'list')).stdout.split('\n').find((line) => line.includes('monthly')) ?? '';
    const [, , , created_, expires, lastUsed] = listed.split(/\s{2,}/);
    const days = (Date.parse(expires ?? '') - Date.parse(created_ ?? '')) / 86_400_000;
    expect(Math.round(days)).toBe(30);
    expect(Date.parse(lastUsed ?? '')).toBeGreaterThan(Date.now() - 60_000);
  });

  it.for<[string]>([['0d'], ['30'], ['1y'], ['-5d']])('refuses --expires %s', async ([duration], { server }) => {
    const result = await keysCli(server, 'create', 'odd', '--expires', duration);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--expires takes a duration/);
  });
});
