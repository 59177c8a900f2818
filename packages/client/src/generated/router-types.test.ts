import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TYPES_PATH, generateRouterTypes } from '../../scripts/router-types.js';

describe("the router's types the client ships", () => {
  it('are the ones the router has today (`pnpm openapi` regenerates them)', () => {
    expect(readFileSync(TYPES_PATH, 'utf8')).toBe(generateRouterTypes());
  });
});
