import { TRPCError } from '@trpc/server';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { toErrorBody } from '../errors/error-body.js';
import type { NewPetRecord, PetRecord } from '../storage/database.js';
import { GetPetParams, NewPet, Pet } from './pet.js';

const valid = { name: 'Rex', categoryId: 1 };

const issuesOf = (input: unknown) => NewPet.safeParse(input).error?.issues.map((issue) => issue.message);

describe('NewPet', () => {
  it('defaults status to available and trims the stored name', () => {
    expect(NewPet.parse({ name: '  Rex \n', categoryId: 7 })).toEqual({
      name: 'Rex',
      categoryId: 7,
      status: 'available',
    });
  });

  it.each(['available', 'pending', 'sold'])('accepts status %s', (status) => {
    expect(NewPet.parse({ ...valid, status }).status).toBe(status);
  });

  it('counts the name in code points, not UTF-16 units', () => {
    const emoji = '🐕'.repeat(255); // 510 UTF-16 units
    expect(NewPet.parse({ ...valid, name: emoji }).name).toBe(emoji);
    expect(NewPet.safeParse({ ...valid, name: `${emoji}🐕` }).success).toBe(false);
    expect(NewPet.safeParse({ ...valid, name: 'a'.repeat(255) }).success).toBe(true);
    expect(NewPet.safeParse({ ...valid, name: 'a'.repeat(256) }).success).toBe(false);
  });

  it('measures the name after trimming', () => {
    expect(NewPet.safeParse({ ...valid, name: ` ${'a'.repeat(255)} ` }).success).toBe(true);
    expect(issuesOf({ ...valid, name: ' \t\n ' })).toEqual(['must not be empty']);
  });

  it('refuses a name that is not well-formed Unicode', () => {
    expect(issuesOf({ ...valid, name: 'Rex\uD800' })).toEqual(['must be well-formed Unicode']);
  });

  it.each([
    ['NUL, which PostgreSQL cannot store', 'Rex\u0000Tom'],
    ['a line feed inside the name', 'Rex\nTom'],
    ['an escape sequence', 'Rex\u001b[2JTom'],
    ['DEL', 'Rex\u007f'],
    ['a C1 control', 'Rex\u0085Tom'],
    ['nothing but control characters', '\u0001'.repeat(255)],
  ])('refuses a name holding a control character: %s', (_, name) => {
    expect(issuesOf({ ...valid, name })).toEqual(['must not contain control characters']);
  });

  it('takes white space around a name, control characters included, and trims it', () => {
    expect(NewPet.parse({ ...valid, name: '\t Rex\n' }).name).toBe('Rex');
  });

  it.each([
    ['a string', '5'],
    ['a boolean', true],
    ['null', null],
    ['an array', [5]],
    ['a fraction', 1.5],
    ['zero', 0],
    ['a negative number', -3],
    ['2^53', 2 ** 53],
    ['infinity', Number.POSITIVE_INFINITY],
  ])('refuses categoryId as %s', (_, categoryId) => {
    expect(NewPet.safeParse({ ...valid, categoryId }).success).toBe(false);
  });

  it('accepts categoryId up to 2^53 - 1', () => {
    expect(NewPet.parse({ ...valid, categoryId: 2 ** 53 - 1 }).categoryId).toBe(2 ** 53 - 1);
  });

  it.each([
    ['an id', { ...valid, id: 3 }],
    ['an unknown field', { ...valid, colour: 'brown' }],
    ['an unknown status', { ...valid, status: 'lost' }],
    ['a name of the wrong type', { ...valid, name: 42 }],
    ['no name', { categoryId: 1 }],
    ['no categoryId', { name: 'Rex' }],
    ['an array body', [valid]],
  ])('refuses %s', (_, input) => {
    expect(NewPet.safeParse(input).success).toBe(false);
  });
});

describe('Pet', () => {
  it('has exactly id, name, categoryId and status', () => {
    expect(Object.keys(Pet.shape)).toEqual(['id', 'name', 'categoryId', 'status']);
  });
});

describe('GetPetParams', () => {
  it('reads a decimal id from the path', () => {
    expect(GetPetParams.parse({ petId: '42' })).toEqual({ petId: 42 });
  });

  it.each(['0', '-1', '1.5', 'abc', '', '1e3', '0x10', ' 7', '007', '9007199254740992'])(
    'refuses petId %j',
    (petId) => {
      expect(GetPetParams.safeParse({ petId }).success).toBe(false);
    },
  );
});

describe('an id beyond the safe range, as the Error body reports it', () => {
  it.each(['9007199254740992', '99999999999999999999'])('gives one message for petId %s', (petId) => {
    const { error } = GetPetParams.safeParse({ petId });
    expect(toErrorBody(new TRPCError({ code: 'BAD_REQUEST', cause: error })).message).toBe('petId: Too big: expected number to be <=9007199254740991');
  });
});

describe('the schemas and the store', () => {
  it('describe exactly what the store keeps: neither changes without the other', () => {
    expectTypeOf<Pet>().toEqualTypeOf<PetRecord>();
    expectTypeOf<NewPet>().toEqualTypeOf<NewPetRecord>();
  });
});
