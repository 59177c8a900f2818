import { z } from 'zod';

/** The largest integer a JSON number survives in JavaScript clients (2^53 - 1). */
export const MAX_SAFE_ID = Number.MAX_SAFE_INTEGER;

type IntegerSchema = z.ZodType<number | undefined>;

/**
 * Runs `read` before `schema` while keeping the schema's own static type, so a field stays
 * `number` (or optional with its default) for typed callers instead of `unknown`. At run time the
 * result is a preprocess pipe, which matters twice: the OpenAPI adapter switches on zod coercion
 * (`_def.coerce = true`) for every number it finds in an input object but does not look inside
 * pipes, and the document generator renders a preprocess pipe as its inner schema.
 */
const readBefore = <T extends IntegerSchema>(
  read: (value: unknown, ctx: z.core.$RefinementCtx) => unknown,
  schema: T,
): T => z.preprocess(read, schema) as unknown as T;

/**
 * An integer in a JSON body: must arrive as a JSON number. Without the pipe the adapter's coercion
 * would turn `"5"`, `true` or `[5]` into 5.
 */
export const jsonInteger = <T extends IntegerSchema>(schema: T): T =>
  readBefore((value) => value, schema);

const DECIMAL_INTEGER = /^(0|-?[1-9][0-9]*)$/;

/**
 * An integer that arrives as text in a query string or a path segment. Only canonical decimal
 * integers are read, so `1e1`, `0x10`, ` 5` or an empty string are refused instead of silently
 * converted the way `Number()` would. Typed callers (tRPC) pass a number directly.
 */
export const integerParam = <T extends IntegerSchema>(schema: T): T =>
  readBefore((value, ctx) => {
    if (typeof value !== 'string') return value;
    if (DECIMAL_INTEGER.test(value)) return Number(value);
    ctx.issues.push({ code: 'custom', message: 'must be an integer', input: value });
    return z.NEVER;
  }, schema);
