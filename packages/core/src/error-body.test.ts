import { TRPCError } from '@trpc/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_ERROR_MESSAGE_LENGTH, toErrorBody } from './error-body.js';

interface Issue {
  path: string[];
  message: string;
}

/** The error tRPC raises for an input that fails validation with these issues. */
const invalidInput = (issues: Issue[]) => {
  const { error } = z
    .unknown()
    .superRefine((_, ctx) => {
      for (const { path, message } of issues) ctx.addIssue({ code: 'custom', path, message });
    })
    .safeParse(undefined);
  return new TRPCError({ code: 'BAD_REQUEST', cause: error });
};

const issue = (path: string[], message: string): Issue => ({ path, message });

describe('toErrorBody', () => {
  it('keeps every message within MAX_ERROR_MESSAGE_LENGTH, the maxLength the document states', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.array(fc.string({ maxLength: 100 }), { maxLength: 5 }),
            fc.oneof(fc.string({ maxLength: 50 }), fc.string({ minLength: 150, maxLength: 1_000 })),
          ),
          { minLength: 1, maxLength: 200, size: 'medium' },
        ),
        (described) => {
          const { message } = toErrorBody(invalidInput(described.map(([path, text]) => issue(path, text))));
          expect(message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_LENGTH);
        },
      ),
      // Shrinking hundreds of long issues takes minutes; the first counterexample says enough.
      { endOnFailure: true },
    );
  });

  it('reaches that bound only with five issues cut short and a count of the rest as long as an array allows', () => {
    const long = issue(['name'], 'x'.repeat(1_000));
    const { message } = toErrorBody(invalidInput([long, long, long, long, long, long]));
    expect(message).toBe(Array(5).fill(`name: ${'x'.repeat(194)}…`).join('; ') + '; and 1 more');
    // The count of the rest can grow to 2^32 - 6, nine digits longer than this one.
    expect(message.length + '4294967290'.length - '1'.length).toBe(MAX_ERROR_MESSAGE_LENGTH);
  });
});
