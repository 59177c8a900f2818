import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONSTANTS_PATH, generateServerConstants } from '../../scripts/server-constants.js';

describe("the wire's constants the client ships", () => {
  it('are the ones core states today (`pnpm openapi` regenerates them)', () => {
    expect(readFileSync(CONSTANTS_PATH, 'utf8')).toBe(generateServerConstants());
  });
});
