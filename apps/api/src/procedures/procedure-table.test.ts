import { type Context, appRouter, authedProcedure, createCallerFactory, handlers } from '@petstore/core';
import { ENGINES, testOn } from '@petstore/core/testing';
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { callProcedure, procedureTable } from './procedure-table.js';

// The transports run each procedure's handler instead of tRPC's middleware chain. That is only the
// same procedure while the chain holds nothing else than the key check, the input, the output and
// the resolver: these tests fail when a procedure (or a tRPC upgrade) adds to it.
describe('the procedure table', () => {
  const table = procedureTable();

  it('has a handler for every procedure, with the procedure’s own input schema', () => {
    for (const [name, procedure] of Object.entries(appRouter._def.procedures)) {
      const handler = table.get(name)?.handler;
      expect(handler, name).toBeDefined();
      expect(procedure._def.inputs).toEqual([handler?.input]);
    }
  });

  it('finds nothing in a procedure’s chain that its handler would skip', () => {
    const keyCheck = authedProcedure._def.middlewares;
    for (const [name, procedure] of Object.entries(appRouter._def.procedures)) {
      // tRPC types the builder's middlewares but not a built procedure's.
      const chain = (procedure._def as unknown as { middlewares: unknown[] }).middlewares;
      // The key check, then tRPC's input and output validators and the resolver, nothing else.
      expect(chain.slice(0, keyCheck.length), name).toEqual(keyCheck);
      expect(chain.length, name).toBe(keyCheck.length + 3);
    }
  });
});

describe.each(ENGINES)('a handler and its tRPC procedure on $name', (engine) => {
  const onEngine = testOn(engine);

  const outcome = (call: Promise<unknown>) =>
    call.then(
      (data) => ({ data }),
      (error: unknown) => ({ error: error instanceof TRPCError ? [error.code, error.message] : String(error) }),
    );

  onEngine.for<[string, Record<string, unknown>]>([
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
    const table = procedureTable();
    const entry = table.get(name);
    if (!entry) throw new Error(`no procedure ${name}`);
    const principals: Context['principal'][] = [
      { keyId: 1, name: 'test', scopes: ['pets:read', 'pets:write'] },
      { keyId: 1, name: 'reader', scopes: ['pets:read'] },
      { keyId: 1, name: 'writer', scopes: ['pets:write'] },
      null,
    ];
    for (const principal of principals) {
      const [viaHandler, viaTrpc]: [Context, Context] = [
        { db, principal, response: {} },
        { db, principal, response: {} },
      ];
      const caller = createCallerFactory(appRouter)(viaTrpc) as unknown as Record<string, (input: unknown) => Promise<unknown>>;
      const direct = await outcome(callProcedure(entry, viaHandler, input));
      const trpc = await outcome(caller[name]?.(input) ?? Promise.reject(new Error('no caller')));
      // A create adds an animal each time; compare everything but its id.
      const comparable = (result: object) => JSON.parse(JSON.stringify(result).replace(/"id":\d+/g, '"id":0')) as unknown;
      expect(comparable(direct)).toEqual(comparable(trpc));
    }
    expect(Object.keys(handlers)).toContain(name);
  });
});
