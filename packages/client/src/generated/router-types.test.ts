import type { AppRouter as ServerRouter } from '@petstore/core';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { TYPES_PATH, generateRouterTypes } from '../../scripts/router-types.js';
import type { AppRouter } from './router-types.js';

describe("the router's types the client ships", () => {
  it('are the ones the router has today (`pnpm openapi` regenerates them)', () => {
    expect(readFileSync(TYPES_PATH, 'utf8')).toBe(generateRouterTypes());
  });

  it("take and give what the server's procedures take and give", () => {
    // Checked by `tsc` (the typecheck script): a difference fails to compile.
    expectTypeOf<inferRouterInputs<AppRouter>>().toEqualTypeOf<inferRouterInputs<ServerRouter>>();
    expectTypeOf<inferRouterOutputs<AppRouter>>().toEqualTypeOf<inferRouterOutputs<ServerRouter>>();
  });
});
