import { TRPCError } from '@trpc/server';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { appRouter, operations } from '../router.js';
import type { Database } from '../storage/database.js';
import { ENGINES, type Engine } from '../testing/engines.js';
import { testOn } from '../testing/fixtures.js';
import { type Context, createCallerFactory } from '../trpc.js';
import { authorize, callOperation, isReplayed } from './call-operation.js';
import type { Operation } from './operation.js';

// The transports run each operation through `authorize` and `callOperation` instead of tRPC's
// middleware chain; tRPC's own adapter (the reference the wire test compares `/trpc` with) runs the
// router's procedure. The two are the same operation only while they answer alike: for any input,
// valid or not, and any key, the same value or the same refusal. A middleware that an operation (or
// a tRPC upgrade) adds to the procedure, or an input schema that differs, shows here.

/** A field's value as a client might send it, valid or not. */
const fieldValue = fc.oneof(
  fc.anything(),
  fc.integer({ min: -2, max: 4 }),
  fc.constantFrom('available', 'pending', 'sold', 'Sold', '', ' Rex ', '1', 'x'.repeat(256), 1.5, null),
  fc.string({ maxLength: 12 }),
);

/** Near-valid inputs for each operation: its own fields (any of them missing), or anything at all. */
const inputFor = (fields: string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record(Object.fromEntries(fields.map((field) => [field, fieldValue])), { requiredKeys: [] }) },
    { weight: 1, arbitrary: fc.anything() },
  );

const FIELDS: Record<keyof typeof operations, string[]> = {
  listPets: ['limit', 'status', 'cursor'],
  createPet: ['name', 'categoryId', 'status'],
  getPet: ['petId'],
};

const KEY_LINEAGE = '0'.repeat(12);

/** Every kind of caller: a key with both scopes, with one each, and none. */
const PRINCIPALS: Context['principal'][] = [
  { keyId: 1, name: 'test', lineage: KEY_LINEAGE, scopes: ['pets:read', 'pets:write'] },
  { keyId: 1, name: 'reader', lineage: KEY_LINEAGE, scopes: ['pets:read'] },
  { keyId: 1, name: 'writer', lineage: KEY_LINEAGE, scopes: ['pets:write'] },
  null,
];

const outcome = (call: Promise<unknown>) =>
  call.then(
    (data) => ({ data, replayed: isReplayed(data) }),
    (error: unknown) => ({ error: error instanceof TRPCError ? [error.code, error.message] : String(error) }),
  );

/** A create adds an animal each time; everything but its id is compared. */
const comparable = (result: object) => JSON.parse(JSON.stringify(result).replace(/"id":\d+/g, '"id":0')) as unknown;

/** The operation called as the transports call it, and through the router's procedure, by one caller. */
const bothWays = async (db: Database, name: keyof typeof operations, principal: Context['principal'], input: unknown) => {
  const operation: Operation = operations[name];
  const ctx: Context = { db, principal };
  const caller = createCallerFactory(appRouter)(ctx) as unknown as Record<string, (input: unknown) => Promise<unknown>>;
  const direct = await outcome(Promise.resolve().then(() => callOperation(operation, authorize(ctx, operation.meta.scope), input)));
  const procedure = await outcome(caller[name]?.(input) ?? Promise.reject(new Error('no caller')));
  return { direct: comparable(direct), procedure: comparable(procedure) };
};

const addKey = (db: Database) =>
  db.apiKeys.insert({ name: 'test', publicId: '0'.repeat(12), secretHash: '00', createdAt: new Date(), expiresAt: null, lineage: KEY_LINEAGE });

describe('an operation and its procedure, over generated input', () => {
  const onSqlite = testOn(ENGINES.find((engine) => !engine.needs) as Engine);

  onSqlite.for(Object.keys(FIELDS) as (keyof typeof operations)[])('%s answers every input and caller alike both ways', async (name, { db }) => {
    await addKey(db);
    await fc.assert(
      fc.asyncProperty(inputFor(FIELDS[name]), fc.constantFrom(...PRINCIPALS), async (input, principal) => {
        const { direct, procedure } = await bothWays(db, name, principal, input);
        expect(direct).toEqual(procedure);
      }),
      { numRuns: 300 },
    );
  });
});

describe.each(ENGINES)('an operation called both ways on $name', (engine) => {
  const onEngine = testOn(engine);

  // Idempotency records belong to an API key, which must exist: the principals are key 1.
  onEngine.beforeEach(async ({ db }) => {
    await addKey(db);
  });

  onEngine.for<[keyof typeof operations, Record<string, unknown>]>([
    ['listPets', { limit: 2 }],
    ['listPets', { limit: 0 }],
    ['listPets', { cursor: 'nope' }],
    ['createPet', { name: ' Rex ', categoryId: 3 }],
    ['createPet', { name: 'Rex', categoryId: '3' }],
    ['createPet', { name: 'Rex', categoryId: 1, id: 9 }],
    ['getPet', { petId: 1 }],
    ['getPet', { petId: 999 }],
    ['getPet', { petId: '1' }],
  ])('%s(%j) answers the same both ways', async ([name, input], { db }) => {
    for (const principal of PRINCIPALS) {
      const { direct, procedure } = await bothWays(db, name, principal, input);
      expect(direct).toEqual(procedure);
    }
  });

  onEngine('marks a create replayed for its Idempotency-Key, on both ways', async ({ db }) => {
    const ctx: Context = { db, principal: { keyId: 1, name: 'test', lineage: '0'.repeat(12), scopes: ['pets:write'] }, idempotencyKey: 'once' };
    const first = await callOperation(operations.createPet, authorize(ctx, 'pets:write'), { name: 'Rex', categoryId: 1 });
    const again = await createCallerFactory(appRouter)(ctx).createPet({ name: 'Rex', categoryId: 1 });
    expect([isReplayed(first), isReplayed(again)]).toEqual([false, true]);
    expect(again).toEqual(first);
    expect(Object.keys(again)).toEqual(['id', 'name', 'categoryId', 'status']);
  });

  onEngine('refuses a call without a key (401), and a key without the operation’s scope (403)', async ({ db }) => {
    const refusal = (principal: Context['principal']) =>
      outcome(Promise.resolve().then(() => authorize({ db, principal }, operations.createPet.meta.scope)));
    expect(await refusal(null)).toEqual({ error: ['UNAUTHORIZED', 'A valid API key is required: send "Authorization: Bearer <API_KEY>".'] });
    expect(await refusal({ keyId: 1, name: 'reader', lineage: '0'.repeat(12), scopes: ['pets:read'] })).toEqual({ error: ['FORBIDDEN', 'This API key lacks the pets:write scope.'] });
  });
});
