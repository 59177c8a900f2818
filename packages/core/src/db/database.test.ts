import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENGINES, type OpenedDatabase } from '../testing/engines.js';

describe.each(ENGINES)('the $name database', (engine) => {
  let opened: OpenedDatabase;
  beforeEach(async () => {
    opened = await engine.open();
  });
  afterEach(() => opened.dispose());

  it('assigns positive ids in creation order', async () => {
    const { db } = opened;
    const first = await db.pets.insert({ name: 'Rex', categoryId: 1, status: 'available' });
    const second = await db.pets.insert({ name: 'Tom', categoryId: 2 ** 53 - 1, status: 'sold' });
    expect(first).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'available' });
    expect(second.id).toBeGreaterThan(first.id);
    expect(await db.pets.findById(second.id)).toEqual(second);
    expect(await db.pets.findById(99)).toBeUndefined();
  });

  it('gives concurrent inserts distinct ids, visible in the order they were given', async () => {
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, index) => opened.db.pets.insert({ name: `p${index}`, categoryId: 1, status: 'pending' })),
    );
    const ids = created.map((pet) => pet.id);
    expect(new Set(ids).size).toBe(40);
    const page = await opened.db.pets.page({ afterId: 0, take: 100 });
    expect(page.map((pet) => pet.id)).toEqual([...ids].sort((a, b) => a - b));
  });

  it('reads pages after an id, optionally filtered by status', async () => {
    const { db } = opened;
    for (const [index, status] of (['available', 'sold', 'available', 'pending'] as const).entries()) {
      await db.pets.insert({ name: `pet ${index}`, categoryId: 1, status });
    }
    const ids = (pets: { id: number }[]) => pets.map((pet) => pet.id);
    expect(ids(await db.pets.page({ afterId: 0, take: 10 }))).toEqual([1, 2, 3, 4]);
    expect(ids(await db.pets.page({ afterId: 1, take: 2 }))).toEqual([2, 3]);
    expect(ids(await db.pets.page({ afterId: 0, status: 'available', take: 10 }))).toEqual([1, 3]);
    expect(ids(await db.pets.page({ afterId: 1, status: 'available', take: 10 }))).toEqual([3]);
  });

  it('keeps names exactly as given, whatever their characters', async () => {
    for (const name of ['🐕'.repeat(255), 'tab\there', 'Ünïcødé 名前', '\u200b zero width']) {
      const pet = await opened.db.pets.insert({ name, categoryId: 1, status: 'available' });
      expect((await opened.db.pets.findById(pet.id))?.name).toBe(name);
    }
  });

  it('answers ping while open, and not after close', async () => {
    await expect(opened.db.ping()).resolves.toBeUndefined();
    await opened.db.close();
    await expect(opened.db.ping()).rejects.toThrow();
  });
});
