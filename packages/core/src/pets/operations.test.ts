import { TRPCError } from '@trpc/server';
import { describe, expect } from 'vitest';
import { ENGINES } from '../testing/engines.js';
import { testOn } from '../testing/fixtures.js';
import { decodeCursor } from './list/cursor.js';
import { toErrorBody } from '../errors/error-body.js';
import { type Context, createCallerFactory } from '../trpc.js';
import { appRouter } from '../router.js';

const createCaller = createCallerFactory(appRouter);

describe.each(ENGINES)('the pet operations through tRPC on $name', (engine) => {
  const it = testOn(engine).extend(
    'ctx',
    ({ db }): Context => ({ db, principal: { keyId: 1, name: 'test', lineage: '0'.repeat(12), scopes: ['pets:read', 'pets:write'] } }),
  );

  const errorOf = async (call: Promise<unknown>) => {
    const error = await call.then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(TRPCError);
    return error as TRPCError;
  };

  it('refuses every call without a principal, before looking at the input', async ({ ctx }) => {
    const caller = createCaller({ ...ctx, principal: null });
    for (const call of [caller.listPets({ limit: 0 }), caller.createPet({} as never), caller.getPet({ petId: -1 })]) {
      expect((await errorOf(call)).code).toBe('UNAUTHORIZED');
    }
  });

  it('refuses a call whose scope the key lacks, before looking at the input', async ({ ctx }) => {
    const reader = createCaller({ ...ctx, principal: { keyId: 1, name: 'reader', lineage: '0'.repeat(12), scopes: ['pets:read'] } });
    const refused = await errorOf(reader.createPet({} as never));
    expect([refused.code, refused.message]).toEqual(['FORBIDDEN', 'This API key lacks the pets:write scope.']);
    expect(await reader.listPets({})).toEqual({ items: [], nextCursor: null });

    const writer = createCaller({ ...ctx, principal: { keyId: 1, name: 'writer', lineage: '0'.repeat(12), scopes: ['pets:write'] } });
    expect((await errorOf(writer.listPets({ limit: 0 }))).code).toBe('FORBIDDEN');
    expect((await errorOf(writer.getPet({ petId: -1 }))).code).toBe('FORBIDDEN');
    expect((await writer.createPet({ name: 'Rex', categoryId: 1 })).name).toBe('Rex');
  });

  it('explains an invalid input in one readable message, and lists it field by field', async ({ ctx }) => {
    const error = await errorOf(createCaller(ctx).createPet({ name: '', categoryId: 0 }));
    expect(toErrorBody(error)).toEqual({
      code: 'BAD_REQUEST',
      message: 'name: must not be empty; categoryId: Too small: expected number to be >=1',
      status: 400,
      issues: [
        { path: ['name'], message: 'must not be empty' },
        { path: ['categoryId'], message: 'Too small: expected number to be >=1' },
      ],
    });
  });

  it('creates, fetches and reports a missing animal', async ({ ctx }) => {
    const caller = createCaller(ctx);
    const rex = await caller.createPet({ name: ' Rex ', categoryId: 3 });
    expect(rex).toEqual({ id: 1, name: 'Rex', categoryId: 3, status: 'available' });
    expect(await caller.getPet({ petId: rex.id })).toEqual(rex);
    const missing = await errorOf(caller.getPet({ petId: 2 }));
    expect([missing.code, missing.message]).toEqual(['NOT_FOUND', 'No animal has id 2.']);
  });

  it('gives the next cursor only when another animal follows', async ({ ctx }) => {
    const caller = createCaller(ctx);
    for (const name of ['a', 'b', 'c', 'd']) await caller.createPet({ name, categoryId: 1 });
    const first = await caller.listPets({ limit: 2 });
    expect(first.items.map((pet) => pet.name)).toEqual(['a', 'b']);
    expect(decodeCursor(first.nextCursor ?? '')).toBe(2);
    const last = await caller.listPets({ limit: 2, cursor: first.nextCursor ?? undefined });
    expect(last.items.map((pet) => pet.name)).toEqual(['c', 'd']);
    expect(last.nextCursor).toBeNull();
  });

  it('keeps the status filter on every page', async ({ ctx }) => {
    const caller = createCaller(ctx);
    for (const status of ['sold', 'available', 'sold', 'sold'] as const) {
      await caller.createPet({ name: status, categoryId: 1, status });
    }
    const first = await caller.listPets({ limit: 2, status: 'sold' });
    expect(first.items.map((pet) => pet.id)).toEqual([1, 3]);
    const second = await caller.listPets({ limit: 2, status: 'sold', cursor: first.nextCursor ?? undefined });
    expect(second).toEqual({ items: [expect.objectContaining({ id: 4 })], nextCursor: null });
  });

  it('walks every page through createCaller, following nextCursor, with animals added meanwhile', async ({ ctx }) => {
    const caller = createCaller(ctx);
    for (let index = 0; index < 10; index++) await caller.createPet({ name: `p${index}`, categoryId: 1 });
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const page = await caller.listPets({ limit: 3, ...(cursor !== null && { cursor }) });
      seen.push(...page.items.map((pet) => pet.id));
      cursor = page.nextCursor;
      if (seen.length < 12) await caller.createPet({ name: 'during', categoryId: 1 });
    } while (cursor !== null);
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, index) => index + 1));
    expect(seen.length).toBeGreaterThanOrEqual(12);
  });
});
