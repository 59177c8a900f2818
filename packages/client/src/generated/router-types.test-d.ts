import type { AppRouter as ServerRouter } from '@petstore/core';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { describe, expectTypeOf, it } from 'vitest';
import type { AppRouter } from './router-types.js';

// A type test: vitest's typecheck mode compiles it and fails on a difference; it never runs.
describe("the router's types the client ships", () => {
  it("take and give what the server's procedures take and give", () => {
    expectTypeOf<inferRouterInputs<AppRouter>>().toEqualTypeOf<inferRouterInputs<ServerRouter>>();
    expectTypeOf<inferRouterOutputs<AppRouter>>().toEqualTypeOf<inferRouterOutputs<ServerRouter>>();
  });
});
