import { TRPCError } from '@trpc/server';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { toErrorBody } from '../errors/error-body.js';
import type { NewPetRecord, PetRecord } from '../storage/database.js';
import { mayHoldInPlace } from './display-safe-name.js';
import { GetPetParams, NewPet, PATTERN_HIDDEN_CHARACTERS, Pet } from './pet.js';

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

  it.each([
    ['a right-to-left override, which shows "Rexexe.jpg"', 'Rex\u202Egpj.exe'],
    ['an isolate', 'Rex\u2067Tom\u2069'],
    ['a right-to-left mark', 'Rex\u200F'],
    ['the Arabic letter mark', '\u061Cبسبس'],
  ])('refuses a name holding a bidirectional control: %s', (_, name) => {
    expect(issuesOf({ ...valid, name })).toEqual(['must not contain bidirectional controls (Unicode Bidi_Control)']);
  });

  const INVISIBLE = 'must not contain invisible characters (Unicode Default_Ignorable_Code_Point), but a joiner between two characters or a variation selector after one';
  it.each([
    ['a zero-width space alone', '\u200B'],
    ['a zero-width space inside', 'Re\u200Bx'],
    ['a Hangul filler alone', '\u3164'],
    ['a Hangul filler beside a letter', 'Rex\u3164'],
    ['a soft hyphen', 'Re\u00ADx'],
    ['a word joiner', 'Re\u2060x'],
    ['a byte order mark inside', 'Re\uFEFFx'],
    ['a tag character', 'Rex\u{E0041}'],
    ['a joiner alone', '\u200D'],
    ['a joiner at the end', 'Rex\u200D'],
    ['a joiner at the start', '\u200DRex'],
    ['a joiner before a space', 'Rex\u200D Tom'],
    ['a variation selector alone', '\uFE0F'],
    ['a variation selector after a space', 'Rex \uFE0F'],
  ])('refuses a name holding an invisible character out of place: %s', (_, name) => {
    expect(issuesOf({ ...valid, name })).toEqual([INVISIBLE]);
  });

  it.each([
    ['only combining marks', '\u0301\u0301'],
    ['only the blank Braille pattern', '\u2800\u2800'],
  ])('refuses a name with nothing that shows: %s', (_, name) => {
    expect(issuesOf({ ...valid, name })).toEqual(['must contain a letter, digit, punctuation mark or symbol that shows']);
  });

  it.each([
    ['an emoji joined by ZWJ', '🐈\u200D⬛'],
    ['a flag of joined emoji with a variation selector', '🏳\uFE0F\u200D🌈'],
    ['a variation selector after a heart', 'Rex ❤\uFE0F'],
    ['a keycap', '1\uFE0F\u20E3'],
    ['Persian with a zero-width non-joiner', 'می\u200Cخواهم'],
    ['a right-to-left name without any control', 'שלום Rex'],
    ['a name in NFD, kept as sent', 'Zoe\u0308'],
    ['a letter with the blank Braille pattern', 'R\u2800'],
  ])('takes %s as sent', (_, name) => {
    expect(NewPet.parse({ ...valid, name }).name).toBe(name);
  });

  it("refuses in the document's pattern every character of the plane the rule refuses anywhere, and no other", () => {
    for (let code = 0; code < 0x10000; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const character = String.fromCodePoint(code);
      const refusedAnywhere = /\p{Bidi_Control}|\p{Default_Ignorable_Code_Point}/u.test(character) && !mayHoldInPlace(character);
      expect(PATTERN_HIDDEN_CHARACTERS.test(character), `U+${code.toString(16)}`).toBe(refusedAnywhere);
    }
  });

  it("has the document's pattern refuse the names the issue found stored", () => {
    const pattern = new RegExp(String(NewPet.shape.name.meta()?.pattern), 'u');
    for (const name of ['Rex\u202Egpj.exe', '\u200B', '\u3164']) expect(pattern.test(name)).toBe(false);
    expect(pattern.test('🐈\u200D⬛ Rex ❤\uFE0F')).toBe(true);
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
