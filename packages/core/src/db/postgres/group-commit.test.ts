import type { NewPet } from '../../pets/pet.js';
import { expect } from 'vitest';
import { it } from '../../testing/fixtures.js';
import type { Database } from '../../storage/database.js';
import { openPostgresDatabase } from './open-postgres-database.js';

const pet = (name: string): NewPet => ({ name, categoryId: 1, status: 'available' });
const start = new Date('2030-01-01T00:00:00Z');

/** A migrated scratch database, and how many batches of creates reached it. */
const test = it.extend('opened', async ({ scratchPostgres }, { onCleanup }) => {
  const batches = { count: 0 };
  const db: Database = await openPostgresDatabase(scratchPostgres.url, {
    onStatement: (_system, statement) => {
      if (/insert into "pets"/.test(statement)) batches.count += 1;
      return () => undefined;
    },
  });
  onCleanup(() => db.close());
  await db.apiKeys.insert({ name: 'one', publicId: 'one'.padEnd(12, '0'), secretHash: '00', createdAt: start, expiresAt: null, lineage: 'one'.padEnd(12, '0') });
  return { db, batches };
});

test('writes creates that arrive together as one batch, their ids in the order they came', async ({ opened: { db, batches } }) => {
  const created = await Promise.all(Array.from({ length: 40 }, (_, index) => db.pets.insert(pet(`p${index}`))));
  expect(created.map((each) => each.name)).toEqual(Array.from({ length: 40 }, (_, index) => `p${index}`));
  expect(created.map((each) => each.id)).toEqual([...created.map((each) => each.id)].sort((a, b) => a - b));
  expect(new Set(created.map((each) => each.id)).size).toBe(40);
  // The first went alone, the rest waited for it and went together.
  expect(batches.count).toBeLessThanOrEqual(3);
  expect(await db.pets.page({ afterId: 0, take: 100 })).toEqual(created);
});

test('keeps the idempotency rule inside one batch: one create per key, the rest replayed or refused', async ({ opened: { db } }) => {
  const once = (key: string, name: string) => db.pets.insertOnce(pet(name), { keyLineage: 'one'.padEnd(12, '0'), key, fingerprint: name, now: start });
  const outcomes = await Promise.all([
    db.pets.insert(pet('plain')),
    once('a', 'Rex'),
    once('a', 'Rex'),
    once('a', 'Tom'),
    once('b', 'Kit'),
    db.pets.insert(pet('plain again')),
  ]);
  const [, first, again, other, kit] = outcomes;
  expect(first).toMatchObject({ outcome: 'created', pet: { name: 'Rex' } });
  expect(again).toEqual({ outcome: 'replayed', pet: (first as { pet: unknown }).pet });
  expect(other).toEqual({ outcome: 'mismatch' });
  expect(kit).toMatchObject({ outcome: 'created', pet: { name: 'Kit' } });
  // The next batch finds the records the first one wrote.
  expect(await once('a', 'Rex')).toEqual({ outcome: 'replayed', pet: (first as { pet: unknown }).pet });
  expect((await db.pets.page({ afterId: 0, take: 100 })).map((each) => each.name)).toEqual(['plain', 'Rex', 'Kit', 'plain again']);
});
