import { z } from 'zod';
import { PET_STATUSES } from '../storage/database.js';
import { MAX_SAFE_ID, integerParam } from './integer-param.js';
import { PAGE_SIZE } from './list/page-size.js';
import { displayIssueOf } from './display-safe-name.js';

export const PetStatus = z
  .enum(PET_STATUSES)
  .meta({ id: 'PetStatus', description: 'Availability of the animal.' });
export type PetStatus = z.infer<typeof PetStatus>;

export const PET_NAME_MAX_CODE_POINTS = 255;

/** Unicode's control characters (general category Cc): C0, DEL and C1. */
const CONTROL_CHARACTERS = '\\u0000-\\u001f\\u007f-\\u009f';

/**
 * What a name may not hold in the Basic Multilingual Plane besides control characters, in a form
 * every JSON Schema validator reads: the bidirectional controls and the invisible characters
 * (pets/display-safe-name.ts) but for the joiners and variation selectors, which are allowed in
 * their place. A test holds it equal to the rule over every character of the plane.
 */
const HIDDEN_BMP = '\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b\\u200e\\u200f\\u202a-\\u202e\\u2060-\\u206f\\u3164\\ufeff\\ufff0-\\ufff8\\uffa0';
const REFUSED = CONTROL_CHARACTERS + HIDDEN_BMP;

// The name rules a JSON Schema pattern can say (ECMAScript's `\s` is exactly what `trim()` removes):
// a name sent holds something besides white space and no control, bidirectional control or
// invisible character of the plane; a name returned is also trimmed. Sent names are trimmed first,
// so white space that is a control character (a tab, a line feed) may surround one. The rules on
// the other planes and on a joiner's place are the service's alone.
const SENT_NAME_PATTERN = '^\\s*[^\\s' + REFUSED + '](?:[^' + REFUSED + ']*[^\\s' + REFUSED + '])?\\s*$';
const STORED_NAME_PATTERN = '^[^\\s' + REFUSED + '](?:[^' + REFUSED + ']*[^\\s' + REFUSED + '])?$';
const CONTROL_CHARACTER = new RegExp(`[${CONTROL_CHARACTERS}]`);

/** The BMP characters the document's pattern refuses beside control characters, for the test that holds them to the rule. */
// eslint-disable-next-line no-misleading-character-class -- each character of the class is refused on its own, none combines with another here
export const PATTERN_HIDDEN_CHARACTERS = new RegExp(`[${HIDDEN_BMP}]`);

/**
 * Trimmed, then 1..255 Unicode code points (JSON Schema's `maxLength` counts code points too,
 * while zod's `.max()` counts UTF-16 units, hence the refinement). Lone surrogates are refused:
 * they cannot be stored as UTF-8 without being replaced, and a name must come back as it was sent.
 * So are control characters (NUL, line breaks, escape sequences): no name needs one, PostgreSQL
 * cannot store NUL, a terminal or log that shows a name would run them, and JSON escapes each as
 * six bytes, which would make the largest answer half as large again as any name needs
 * (docs/decisions/2026-11-28-what-a-client-can-make-the-process-hold.md).
 */
const PetName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  // A string has at least as many UTF-16 units as code points: only a long one needs counting.
  .refine((name) => name.length <= PET_NAME_MAX_CODE_POINTS || Array.from(name).length <= PET_NAME_MAX_CODE_POINTS, {
    message: `must be at most ${PET_NAME_MAX_CODE_POINTS} characters`,
  })
  .refine((name) => name.isWellFormed(), { message: 'must be well-formed Unicode' })
  .refine((name) => !CONTROL_CHARACTER.test(name), { message: 'must not contain control characters' })
  // A name with a control character is refused above; these rules say what else would mislead a reader.
  .superRefine((name, context) => {
    const issue = name === '' || CONTROL_CHARACTER.test(name) ? undefined : displayIssueOf(name);
    if (issue !== undefined) context.addIssue({ code: 'custom', message: issue });
  })
  .meta({ description: "The animal's name.", maxLength: PET_NAME_MAX_CODE_POINTS, pattern: SENT_NAME_PATTERN });

/**
 * int64 in the interface, narrowed to 1..2^53-1: larger values cannot round-trip through JSON
 * numbers in JavaScript clients, so they are refused rather than silently rounded.
 */
const positiveId = (description: string) =>
  z.int().min(1).max(MAX_SAFE_ID).meta({ format: 'int64', description });

export const PetId = positiveId('Unique identifier, assigned by the service on creation.');

const CategoryId = positiveId('Identifier of the category the animal belongs to.');

export const NewPet = z
  .strictObject({
    name: PetName,
    categoryId: CategoryId,
    status: PetStatus.default('available'),
  })
  .meta({ id: 'NewPet', description: 'An animal to add; `status` defaults to `available`.' });
export type NewPet = z.output<typeof NewPet>;

/**
 * What the store returns: shapes only, for the type and the document (results are not checked
 * again, see `resultOf`); the rules for names and ids were applied when the animal was stored.
 */
export const Pet = z
  .strictObject({
    id: PetId,
    name: z.string().meta({
      description: "The animal's name.",
      minLength: 1,
      maxLength: PET_NAME_MAX_CODE_POINTS,
      pattern: STORED_NAME_PATTERN,
    }),
    categoryId: CategoryId,
    status: PetStatus,
  })
  .meta({ id: 'Pet', description: 'An animal as the store returns it.' });
export type Pet = z.output<typeof Pet>;

export const Pets = z
  .array(Pet)
  .meta({ id: 'Pets', description: 'A page of animals, by ascending id.', maxItems: PAGE_SIZE.max });

export const GetPetParams = z.strictObject({
  // `param.required`: the generator reads a preprocess pipe's input as optional, and OpenAPI
  // requires every path parameter to say it is required.
  petId: integerParam(PetId).meta({ description: 'The identifier of the animal.', param: { required: true } }),
});
