import { z } from 'zod';

/** The largest integer a JSON number survives in JavaScript clients (2^53 - 1). */
export const MAX_SAFE_ID = Number.MAX_SAFE_INTEGER;

type IntegerSchema = z.ZodType<number | undefined>;

const DECIMAL_INTEGER = /^(0|-?[1-9][0-9]*)$/;

/**
 * An integer that arrives as text in a query string or a path segment. Only canonical decimal
 * integers are read, so `1e1`, `0x10`, ` 5` or an empty string are refused instead of silently
 * converted the way `Number()` would. Typed callers (tRPC) pass a number directly.
 */
export const integerParam = <T extends IntegerSchema>(schema: T): T =>
  // The cast keeps the schema's own static type, so the field stays `number` (or optional with its
  // default) for typed callers instead of the preprocess's `unknown`. The document generator
  // renders a preprocess pipe as its inner schema.
  z.preprocess((value, ctx) => {
    if (typeof value !== 'string') return value;
    if (DECIMAL_INTEGER.test(value)) return Number(value);
    ctx.issues.push({ code: 'custom', message: 'must be an integer', input: value });
    return z.NEVER;
  }, schema) as unknown as T;
