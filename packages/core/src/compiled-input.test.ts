import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeCursor } from './pets/list/cursor.js';
import { operations } from './router.js';
import type { Operation } from './operation/operation.js';

// The transports validate with each operation's compiled parser, tRPC's own path and the OpenAPI
// document with the schema. These runs hold the two to the same answers over generated input:
// the same acceptance, the same value out, and the same issues for a refusal.

/** A field's value as a client might send it, valid or not, as text (REST) or as JSON (tRPC). */
const fieldValue = fc.oneof(
  fc.anything(),
  fc.stringMatching(/^-?[0-9]{1,20}(\.[0-9])?$/),
  fc.integer({ min: -5, max: 205 }),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, 1.5, -0, Number.NaN, Number.POSITIVE_INFINITY),
  fc.constantFrom('available', 'pending', 'sold', 'Sold', '', ' ', ' Rex ', 'Re\u0000x', 'Re\u0001x', '\tRex\n', '\uD800', 'x'.repeat(256), '😀'.repeat(255)),
  fc.integer({ min: 1, max: 2 ** 40 }).map(encodeCursor),
  fc.string(),
);

/** Near-valid inputs for each operation: its own fields (any of them missing), sometimes one more. */
const fieldsOf: Record<keyof typeof operations, string[]> = {
  listPets: ['limit', 'status', 'cursor'],
  createPet: ['name', 'categoryId', 'status'],
  getPet: ['petId'],
};

const inputFor = (fields: string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record(Object.fromEntries(fields.map((field) => [field, fieldValue])), { requiredKeys: [] }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.record(Object.fromEntries(fields.map((field) => [field, fieldValue]))), fc.dictionary(fc.string({ maxLength: 8 }), fieldValue, { maxKeys: 2 }))
        .map(([known, extra]) => ({ ...extra, ...known })),
    },
    { weight: 1, arbitrary: fc.anything() },
  );

const answerOf = (result: ReturnType<Operation['input']['safeParse']>) =>
  result.success ? { accepted: result.data } : { refused: result.error.issues };

describe.each(Object.keys(fieldsOf) as (keyof typeof operations)[])('%s: the compiled input parser', (name) => {
  const operation: Operation = operations[name];

  it('answers every generated input as the schema does', () => {
    fc.assert(
      fc.property(inputFor(fieldsOf[name]), (input) => {
        expect(answerOf(operation.compiledInput.safeParse(input))).toEqual(answerOf(operation.input.safeParse(input)));
      }),
      { numRuns: 3000 },
    );
  });

  it('is a parser of its own, not the schema again', () => {
    expect(operation.compiledInput).not.toBe(operation.input);
  });
});
