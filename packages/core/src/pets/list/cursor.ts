import { z } from 'zod';
import { MAX_SAFE_ID } from '../integer-param.js';

/**
 * The opaque page cursor: base64url of `after:<id>`, the last id of the previous page. Keyset
 * pagination on the primary key keeps every page as cheap as the first, and animals created while
 * a client walks the pages land after the cursor, so none is skipped or repeated.
 */
const PREFIX = 'after:';
const AFTER_ID = /^after:([1-9][0-9]{0,15})$/;

export const encodeCursor = (afterId: number): string =>
  Buffer.from(`${PREFIX}${afterId}`).toString('base64url');

/** The id a cursor points after, or undefined when the text is not a cursor this service made. */
export const decodeCursor = (cursor: string): number | undefined => {
  const match = AFTER_ID.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!match) return undefined;
  const afterId = Number(match[1]);
  // Base64url decoding skips stray characters; only the canonical spelling of a cursor is one.
  return afterId <= MAX_SAFE_ID && encodeCursor(afterId) === cursor ? afterId : undefined;
};

/** Room for every cursor this service makes (at most 30 characters) and then some. */
export const MAX_CURSOR_LENGTH = 64;

export const Cursor = z
  .string()
  .max(MAX_CURSOR_LENGTH)
  .transform((cursor, ctx) => {
    const afterId = decodeCursor(cursor);
    if (afterId !== undefined) return afterId;
    ctx.issues.push({ code: 'custom', message: 'is not a valid page cursor', input: cursor });
    return z.NEVER;
  })
  .meta({
    description:
      'Opaque position in the list. Take it from the `Link: <…>; rel="next"` header of the previous page.',
    // Base64url without padding: the only spelling `decodeCursor` accepts.
    pattern: '^[A-Za-z0-9_-]+$',
  });
