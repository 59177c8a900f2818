import { describe, expect } from 'vitest';
import { ENGINES } from '../testing/engines.js';
import { testOn } from '../testing/fixtures.js';

describe.each(ENGINES)('the $name database', (engine) => {
  const it = testOn(engine);

  it('assigns positive ids in creation order', async ({ db }) => {
    const first = await db.pets.insert({ name: 'Rex', categoryId: 1, status: 'available' });
    const second = await db.pets.insert({ name: 'Tom', categoryId: 2 ** 53 - 1, status: 'sold' });
    expect(first).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'available' });
    expect(second.id).toBeGreaterThan(first.id);
    expect(await db.pets.findById(second.id)).toEqual(second);
    expect(await db.pets.findById(99)).toBeUndefined();
  });

  it('gives concurrent inserts distinct ids, visible in the order they were given', async ({ db }) => {
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, index) => db.pets.insert({ name: `p${index}`, categoryId: 1, status: 'pending' })),
    );
    const ids = created.map((pet) => pet.id);
    expect(new Set(ids).size).toBe(40);
    const page = await db.pets.page({ afterId: 0, take: 100 });
    expect(page.map((pet) => pet.id)).toEqual([...ids].sort((a, b) => a - b));
  });

  it('reads pages after an id, optionally filtered by status', async ({ db }) => {
    for (const [index, status] of (['available', 'sold', 'available', 'pending'] as const).entries()) {
      await db.pets.insert({ name: `pet ${index}`, categoryId: 1, status });
    }
    const ids = (pets: { id: number }[]) => pets.map((pet) => pet.id);
    expect(ids(await db.pets.page({ afterId: 0, take: 10 }))).toEqual([1, 2, 3, 4]);
    expect(ids(await db.pets.page({ afterId: 1, take: 2 }))).toEqual([2, 3]);
    expect(ids(await db.pets.page({ afterId: 0, status: 'available', take: 10 }))).toEqual([1, 3]);
    expect(ids(await db.pets.page({ afterId: 1, status: 'available', take: 10 }))).toEqual([3]);
  });

  it('keeps names exactly as given, whatever their characters', async ({ db }) => {
    for (const name of ['🐕'.repeat(255), 'tab\there', 'Ünïcødé 名前', '\u200b zero width']) {
      const pet = await db.pets.insert({ name, categoryId: 1, status: 'available' });
      expect((await db.pets.findById(pet.id))?.name).toBe(name);
    }
  });

  it('answers ping while open, and not after close', async ({ db }) => {
    await expect(db.ping()).resolves.toBeUndefined();
    await db.close();
    await expect(db.ping()).rejects.toThrow();
  });
});
