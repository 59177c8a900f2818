import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { appRouter, operations } from '../router.js';
import { ENGINES } from '../testing/engines.js';
import { testOn } from '../testing/fixtures.js';
import { type Context, createCallerFactory } from '../trpc.js';
import { authorize, callOperation, isReplayed } from './call-operation.js';
import { authedProcedure } from './define-operation.js';
import type { Operation } from './operation.js';

// The transports run each operation through `authorize` and `callOperation` instead of tRPC's middleware chain.
// That is only the same procedure while the chain holds nothing but the key and scope check, the
// input, the output and the resolver: these tests fail when an operation (or a tRPC upgrade) adds
// to it, or when the two ways of calling answer differently.
describe('an operation and its procedure', () => {
  it('share the input schema', () => {
    for (const [name, operation] of Object.entries(operations) as [string, Operation][]) {
      expect(appRouter._def.procedures[name as keyof typeof operations]._def.inputs, name).toEqual([operation.input]);
    }
  });

  it('hold nothing in the procedure’s chain that callOperation would skip', () => {
    const authorization = authedProcedure._def.middlewares;
    for (const name of Object.keys(operations)) {
      // tRPC types the builder's middlewares but not a built procedure's.
      const chain = (appRouter._def.procedures[name as keyof typeof operations]._def as unknown as { middlewares: unknown[] }).middlewares;
      // The key and scope check, then tRPC's input and output validators and the resolver.
      expect(chain.slice(0, authorization.length), name).toEqual(authorization);
      expect(chain.length, name).toBe(authorization.length + 3);
    }
  });
});

describe.each(ENGINES)('an operation called both ways on $name', (engine) => {
  const onEngine = testOn(engine);

  // Idempotency records belong to an API key, which must exist: the principals below are key 1.
  onEngine.beforeEach(async ({ db }) => {
    await db.apiKeys.insert({ name: 'test', publicId: '0'.repeat(12), secretHash: '00', createdAt: new Date(), expiresAt: null, lineage: '0'.repeat(12) });
  });

  const outcome = (call: Promise<unknown>) =>
    call.then(
      (data) => ({ data, replayed: isReplayed(data) }),
      (error: unknown) => ({ error: error instanceof TRPCError ? [error.code, error.message] : String(error) }),
    );

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
    const operation: Operation = operations[name];
    const caller = createCallerFactory(appRouter) as unknown as (ctx: Context) => Record<string, (input: unknown) => Promise<unknown>>;
    const principals: Context['principal'][] = [
      { keyId: 1, name: 'test', lineage: '0'.repeat(12), scopes: ['pets:read', 'pets:write'] },
      { keyId: 1, name: 'reader', lineage: '0'.repeat(12), scopes: ['pets:read'] },
      { keyId: 1, name: 'writer', lineage: '0'.repeat(12), scopes: ['pets:write'] },
      null,
    ];
    for (const principal of principals) {
      const ctx: Context = { db, principal };
      const direct = await outcome(Promise.resolve().then(() => callOperation(operation, authorize(ctx, operation.meta.scope), input)));
      const trpc = await outcome(caller(ctx)[name]?.(input) ?? Promise.reject(new Error('no caller')));
      // A create adds an animal each time; compare everything but its id.
      const comparable = (result: object) => JSON.parse(JSON.stringify(result).replace(/"id":\d+/g, '"id":0')) as unknown;
      expect(comparable(direct)).toEqual(comparable(trpc));
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
