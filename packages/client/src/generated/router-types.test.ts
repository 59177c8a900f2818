import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TYPES_PATH, generateRouterTypes } from '../../scripts/router-types.js';

describe("the router's types the client ships", () => {
  // A type check of the whole router: beside CI's other packages on two cores it has taken 22 s.
  it('are the ones the router has today (`pnpm openapi` regenerates them)', () => {
    expect(readFileSync(TYPES_PATH, 'utf8')).toBe(generateRouterTypes());
  }, 120_000);
});
