import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PET_STATUSES } from '@petstore/core';
import { TEST_POSTGRES_URL, isSqliteElsewhere, isSqliteOnlyRun } from '@petstore/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededPostgres, seedPostgres } from '../src/seed-postgres.js';
import { copyDatabase, seedDatabase } from '../src/seed.js';
import { type TargetKind, type TargetProcess, startTarget } from '../src/target-process.js';
import { type Answer, type CallOptions, callWith, contractCheckers, nextPage } from './support/contract-client.js';

// Every target the bench measures answers the same REST cases, each response checked against the
// document the service serves: a peer that is faster because it skips part of the contract would
// make the bench's ratios meaningless. Targets start as the bench starts them (startTarget, compiled,
// their own copy of the seeded data, the one key in memory), one at a time beside the service.

/** Three pages of 20, and the statuses in turn, so a filtered walk skips rows. */
const SEEDED = 45;
const seededPet = (id: number) => ({
  id,
  name: `pet ${id}`,
  categoryId: 1 + ((id - 1) % 50),
  status: PET_STATUSES[(id - 1) % PET_STATUSES.length],
});
const SEEDED_IDS = Array.from({ length: SEEDED }, (_, index) => index + 1);

const TARGETS: { kind: TargetKind; on: 'SQLite' | 'PostgreSQL' }[] = [
  { kind: 'service', on: 'SQLite' },
  { kind: 'fastify-peer', on: 'SQLite' },
  { kind: 'fastify-features-peer', on: 'SQLite' },
  { kind: 'express-peer', on: 'SQLite' },
  { kind: 'hono-peer', on: 'SQLite' },
  { kind: 'orpc-peer', on: 'SQLite' },
  { kind: 'bare-node', on: 'SQLite' },
  { kind: 'bare-pg', on: 'PostgreSQL' },
  { kind: 'bare-pg-unnamed', on: 'PostgreSQL' },
];

const folder = mkdtempSync(join(tmpdir(), 'petstore-bench-contract-'));
const template = join(folder, 'template.db');
let apiKey = '';
let service: TargetProcess;
let checkers: Awaited<ReturnType<typeof contractCheckers>>;
/** What the service answers to `GET /v1/pets/1`: the headers every target must send alike. */
let serviceGet: Answer;

beforeAll(async () => {
  ({ apiKey } = await seedDatabase(template, SEEDED));
  const file = join(folder, 'service.db');
  copyDatabase(template, file);
  service = await startTarget('service', { database: { file }, apiKey });
  checkers = await contractCheckers(service.url);
  serviceGet = await callWith(checkers.service, service.url, apiKey)('/v1/pets/1');
  // Seeding 10,000 animals and starting the service took over 30 s beside the rest of CI's suite.
}, 120_000);

afterAll(async () => {
  await service.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** The Error body: its three fields, and the list of fields that failed validation that a 400 may add (the service's does; a peer need not). */
const expectError = (answer: Answer, status: number, code: string) => {
  const { issues, ...body } = answer.body as { issues?: unknown };
  expect({ status: answer.status, body }).toEqual({ status, body: { code, message: expect.any(String), status } });
  if (issues !== undefined) {
    expect(status).toBe(400);
    expect(issues).toEqual(expect.arrayContaining([{ path: expect.any(Array), message: expect.any(String) }]));
  }
};

const idsOf = (answer: Answer) => (answer.body as { id: number }[]).map((pet) => pet.id);

describe.each(TARGETS)('$kind on $on', ({ kind, on }) => {
  const skipped = on === 'PostgreSQL' ? isSqliteOnlyRun() : isSqliteElsewhere();
  let target: TargetProcess | undefined;
  let baseUrl = '';
  let key = '';
  let postgres: SeededPostgres | undefined;
  let call: (path: string, options?: CallOptions) => Promise<Answer>;

  beforeAll(async () => {
    if (skipped) return;
    if (kind === 'service') {
      target = service;
      key = apiKey;
    } else if (on === 'PostgreSQL') {
      postgres = await seedPostgres(SEEDED, TEST_POSTGRES_URL);
      key = postgres.apiKey;
      target = await startTarget(kind, { database: { url: postgres.url }, apiKey: key });
    } else {
      const file = join(folder, `${kind}.db`);
      copyDatabase(template, file);
      key = apiKey;
      target = await startTarget(kind, { database: { file }, apiKey: key });
    }
    baseUrl = target.url;
    call = callWith(kind === 'service' ? checkers.service : checkers.peer, baseUrl, key);
  });

  afterAll(async () => {
    if (kind !== 'service') await target?.stop();
    await postgres?.drop();
  });

  // Left out of a SQLite-only run, which has no PostgreSQL to seed.
  describe.skipIf(skipped)('answers', () => {
    it('lists the first page: 20 by default, or `limit` animals, with the next page linked', async () => {
      const first = await call('/v1/pets');
      expect(first.status).toBe(200);
      expect(first.body).toEqual(SEEDED_IDS.slice(0, 20).map(seededPet));
      expect(nextPage(first)).toMatch(/^\/v1\/pets\?/);

      const five = await call('/v1/pets?limit=5');
      expect(idsOf(five)).toEqual([1, 2, 3, 4, 5]);
      expect(new URL(nextPage(five) ?? '', baseUrl).searchParams.get('limit')).toBe('5');
    });

    it('filters by status', async () => {
      const sold = await call('/v1/pets?status=sold&limit=100');
      expect(sold.status).toBe(200);
      expect(sold.body).toEqual(SEEDED_IDS.map(seededPet).filter((pet) => pet.status === 'sold'));
      expect(nextPage(sold)).toBeUndefined();
    });

    it.each([
      ['every animal', '/v1/pets?limit=7', SEEDED_IDS],
      ['the available ones', '/v1/pets?status=available&limit=4', SEEDED_IDS.filter((id) => seededPet(id).status === 'available')],
    ])('walks %s through the Link header to the end: ascending ids, none twice', async (_, start, expected) => {
      const seen: number[] = [];
      let path: string | undefined = start;
      for (let page = 0; path !== undefined; page++) {
        expect(page, 'more pages than animals').toBeLessThan(SEEDED);
        const answer = await call(path);
        expect(answer.status).toBe(200);
        seen.push(...idsOf(answer));
        path = nextPage(answer);
      }
      expect(seen).toEqual(expected);
    });

    it('gets an animal with the deprecation headers the service sends', async () => {
      const pet = await call('/v1/pets/1');
      expect({ status: pet.status, body: pet.body }).toEqual({ status: 200, body: seededPet(1) });
      for (const name of ['Deprecation', 'Sunset', 'Link']) expect(pet.header(name), name).toBe(serviceGet.header(name));
    });

    it('answers 404 with the Error body for an animal that does not exist', async () => {
      expectError(await call('/v1/pets/999999'), 404, 'NOT_FOUND');
    });

    it('answers 404 with the Error body for a path it does not serve', async () => {
      expectError(await call('/v1/nothing-here'), 404, 'NOT_FOUND');
    });

    it('creates an animal: 201, its Location, and the animal as stored', async () => {
      const created = await call('/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 7 } });
      expect(created.status).toBe(201);
      const { id } = created.body as { id: number };
      expect(created.body).toEqual({ id, name: 'Rex', categoryId: 7, status: 'available' });
      expect(id).toBeGreaterThan(SEEDED);
      expect(created.header('location')).toBe(`/v1/pets/${id}`);
      const fetched = await call(`/v1/pets/${id}`);
      expect(fetched.body).toEqual(created.body);
    });

    it.each(['limit=0', 'limit=101', 'limit=ten', 'status=lost', 'cursor=nonsense'])('refuses a list with %s: 400', async (query) => {
      expectError(await call(`/v1/pets?${query}`), 400, 'BAD_REQUEST');
    });

    it.each(['abc', '0', '-1', '1.5'])('refuses petId %s: 400', async (petId) => {
      expectError(await call(`/v1/pets/${petId}`), 400, 'BAD_REQUEST');
    });

    it.each([
      ['an empty name', { json: { name: '  ', categoryId: 1 } }],
      ['no categoryId', { json: { name: 'Rex' } }],
      ['an unknown status', { json: { name: 'Rex', categoryId: 1, status: 'lost' } }],
      ['a body that is not JSON', { body: '{"name":' }],
    ])('refuses a create with %s: 400', async (_, options) => {
      expectError(await call('/v1/pets', { method: 'POST', ...options }), 400, 'BAD_REQUEST');
    });

    it.each([
      ['no key', () => null],
      // The held key with its last character changed: refused by the comparison, not by its shape.
      ['a wrong key', () => `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`],
      ['a token that is no key', () => 'nonsense'],
    ])('answers 401 to %s, with the challenge', async (_, sentKey) => {
      for (const [path, options] of [
        ['/v1/pets', {}],
        ['/v1/pets/1', {}],
        ['/v1/pets', { method: 'POST', json: { name: 'Rex', categoryId: 7 } }],
      ] as const) {
        const answer = await call(path, { ...options, key: sentKey() });
        expectError(answer, 401, 'UNAUTHORIZED');
        expect(answer.header('www-authenticate')).toBe('Bearer realm="petstore"');
      }
    });
  });
});
