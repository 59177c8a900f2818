import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TYPES_PATH, generateRestTypes } from '../../scripts/rest-types.js';

describe('the REST types the client ships', () => {
  it('match openapi.json (`pnpm openapi` regenerates them)', async () => {
    expect(readFileSync(TYPES_PATH, 'utf8')).toBe(await generateRestTypes());
  });
});
