import { TRPCError } from '@trpc/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ErrorBody, MAX_ERROR_MESSAGE_LENGTH, ValidationIssue, toErrorBody } from './error-body.js';

interface Issue {
  path: (string | number)[];
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

const issue = (path: (string | number)[], message: string): Issue => ({ path, message });

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

  it('lists an invalid input field by field, the issues the message names, and nothing for any other error', () => {
    const invalid = toErrorBody(invalidInput([issue(['limit'], 'Too big'), issue([], 'Unrecognized key: "colour"'), issue(['tags', 2], 'Invalid')]));
    expect(invalid).toEqual({
      code: 'BAD_REQUEST',
      message: 'limit: Too big; Unrecognized key: "colour"; tags.2: Invalid',
      status: 400,
      issues: [
        { path: ['limit'], message: 'Too big' },
        { path: [], message: 'Unrecognized key: "colour"' },
        { path: ['tags', 2], message: 'Invalid' },
      ],
    });
    expect(toErrorBody(new TRPCError({ code: 'BAD_REQUEST', message: 'Not JSON.' }))).not.toHaveProperty('issues');
    expect(toErrorBody(new TRPCError({ code: 'NOT_FOUND', message: 'No animal has id 2.' }))).not.toHaveProperty('issues');
    // A result that fails its own schema is the service's fault: nothing of it is shown.
    const { error: output } = z.int().safeParse('x');
    expect(toErrorBody(new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: output }))).not.toHaveProperty('issues');
  });

  it('keeps the list within the bounds the Error schema states: how many issues, how deep a path, how long a text', () => {
    const listed = ErrorBody.shape.issues.meta() as { maxItems: number };
    const path = ValidationIssue.shape.path.meta() as { maxItems: number };
    const [key, index] = ValidationIssue.shape.path.element.options.map((option) => option.meta() ?? {}) as [{ maxLength: number }, object];
    const text = ValidationIssue.shape.message.meta() as { maxLength: number };
    expect(index).toEqual({ format: 'int64' });
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.array(fc.oneof(fc.string({ maxLength: 300 }), fc.nat()), { maxLength: 12 }),
            fc.oneof(fc.string({ maxLength: 50 }), fc.string({ minLength: 150, maxLength: 1_000 })),
          ),
          { minLength: 1, maxLength: 50 },
        ),
        (described) => {
          const { issues = [] } = toErrorBody(invalidInput(described.map(([at, words]) => issue(at, words))));
          expect(issues.length).toBe(Math.min(described.length, listed.maxItems));
          for (const reported of issues) {
            expect(reported.path.length).toBeLessThanOrEqual(path.maxItems);
            for (const step of reported.path) if (typeof step === 'string') expect(step.length).toBeLessThanOrEqual(key.maxLength);
            expect(reported.message.length).toBeLessThanOrEqual(text.maxLength);
          }
        },
      ),
      { endOnFailure: true },
    );
  });
});
