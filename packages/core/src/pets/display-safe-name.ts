/**
 * What an animal's name may hold so that it reads as what it is wherever it is shown, in the
 * vocabulary of Unicode Technical Standard #39 (docs/decisions/2026-11-29-names-that-read-as-they-are.md):
 *
 * - no bidirectional control (Bidi_Control: the embeddings, overrides and isolates, and the marks
 *   LRM, RLM, ALM): they reorder what follows, so `Rex\u202Egpj.exe` shows as `Rexexe.jpg`. Text in
 *   a right-to-left script needs none: the bidirectional algorithm orders it by itself.
 * - no invisible character (Default_Ignorable_Code_Point: zero-width space, word joiner, soft
 *   hyphen, Hangul fillers, tags…), but for those that join or choose the form of visible
 *   characters, which emoji and several scripts need: a zero-width joiner or non-joiner between two
 *   visible characters (`🐈‍⬛`, Persian's ZWNJ), a variation selector after one (`❤️`).
 * - at least one letter, digit, punctuation mark or symbol that is not blank: a name is not only
 *   marks, invisible characters or the blank Braille pattern (U+2800), which shows as nothing.
 *
 * Names are kept as sent, not normalised to NFC: a name is shown, never looked up or compared, so
 * two spellings of one name mislead no one, and a client gets back exactly what it sent.
 */

const BIDI_CONTROL = /\p{Bidi_Control}/u;
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;
const codeOf = (character: string) => character.codePointAt(0) ?? 0;
const isJoiner = (character: string) => codeOf(character) === 0x200c || codeOf(character) === 0x200d;
const isVariationSelector = (character: string) => {
  const code = codeOf(character);
  return (code >= 0xfe00 && code <= 0xfe0f) || (code >= 0xe0100 && code <= 0xe01ef);
};

/** The invisible characters a name may hold, in their place: the joiners and the variation selectors. */
export const mayHoldInPlace = (character: string): boolean => isJoiner(character) || isVariationSelector(character);
const SHOWN = /[\p{L}\p{N}\p{P}\p{S}]/u;
const BLANK_BRAILLE = '\u2800';

/** A character a joiner may stand beside, or a variation selector follow: neither white space nor invisible. */
const isVisible = (character: string | undefined) => character !== undefined && !/\s/u.test(character) && !INVISIBLE.test(character);

/** Why a name would mislead its reader, as an issue's message; undefined when it reads as it is. */
export const displayIssueOf = (name: string): string | undefined => {
  const characters = Array.from(name);
  if (characters.some((character) => BIDI_CONTROL.test(character))) return 'must not contain bidirectional controls (Unicode Bidi_Control)';
  const misplaced = characters.some((character, index) => {
    if (!INVISIBLE.test(character)) return false;
    const before = characters[index - 1];
    if (isVariationSelector(character)) return !isVisible(before);
    if (isJoiner(character)) return !(isVisible(before) || (before !== undefined && isVariationSelector(before))) || !isVisible(characters[index + 1]);
    return true;
  });
  if (misplaced) return 'must not contain invisible characters (Unicode Default_Ignorable_Code_Point), but a joiner between two characters or a variation selector after one';
  if (!characters.some((character) => SHOWN.test(character) && !INVISIBLE.test(character) && character !== BLANK_BRAILLE)) {
    return 'must contain a letter, digit, punctuation mark or symbol that shows';
  }
  return undefined;
};
