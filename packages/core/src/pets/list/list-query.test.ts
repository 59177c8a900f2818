import fc from 'fast-check';
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.js';
import { toErrorBody } from '../../errors/error-body.js';
import { ListPetsQuery } from './list-query.js';

describe('ListPetsQuery', () => {
  it('defaults limit to 20 and leaves the filter and cursor unset', () => {
    expect(ListPetsQuery.parse({})).toEqual({ limit: 20 });
  });

  it.each(['1', '100', '20'])('reads limit %s from a query string', (limit) => {
    expect(ListPetsQuery.parse({ limit }).limit).toBe(Number(limit));
  });

  it.each(['0', '101', '1.5', 'abc', '', '1e1', '-5', '0x10'])('refuses limit %j', (limit) => {
    expect(ListPetsQuery.safeParse({ limit }).success).toBe(false);
  });

  it('refuses an unknown status and an unknown parameter', () => {
    expect(ListPetsQuery.safeParse({ status: 'lost' }).success).toBe(false);
    expect(ListPetsQuery.safeParse({ stauts: 'sold' }).success).toBe(false);
  });

  it('decodes a cursor to the id it points after', () => {
    expect(ListPetsQuery.parse({ cursor: encodeCursor(41) })).toEqual({ limit: 20, cursor: 41 });
  });

  it.each([
    '',
    'abc',
    '!!!!',
    encodeCursor(41).slice(0, -1),
    `${encodeCursor(41)}=`,
    Buffer.from('after:0').toString('base64url'),
    Buffer.from('after:-3').toString('base64url'),
    Buffer.from('after:9007199254740992').toString('base64url'),
    Buffer.from('before:4').toString('base64url'),
  ])('refuses the malformed cursor %j', (cursor) => {
    expect(ListPetsQuery.safeParse({ cursor }).success).toBe(false);
  });
});

describe('cursor', () => {
  it('round-trips every id a pet can have', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (id) => {
        expect(decodeCursor(encodeCursor(id))).toBe(id);
      }),
    );
  });

  it('decodes no other text than the cursors it encodes', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const afterId = decodeCursor(text);
        if (afterId !== undefined) expect(encodeCursor(afterId)).toBe(text);
      }),
    );
  });
});

describe('an invalid limit, as the Error body reports it', () => {
  it.each(['101', '9007199254740993', '99999999999999999999'])('names only the documented bound for %s', (limit) => {
    const { error } = ListPetsQuery.safeParse({ limit });
    expect(toErrorBody(new TRPCError({ code: 'BAD_REQUEST', cause: error })).message).toBe('limit: Too big: expected number to be <=100');
  });
});
