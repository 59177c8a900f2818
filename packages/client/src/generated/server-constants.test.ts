import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONSTANTS_PATH, generateServerConstants } from '../../scripts/server-constants.js';

describe("the server's constants the client ships", () => {
  it('are the ones apps/api has today (`pnpm openapi` regenerates them)', () => {
    expect(readFileSync(CONSTANTS_PATH, 'utf8')).toBe(generateServerConstants());
  });
});
