// Control and invisible-character screening (the filter's second and third checks).
//
// Contract: `scanCharacters(text)` walks the text once, code point by code point, and reports
// whether it holds control characters and whether it holds suspicious invisible Unicode.
// Why context rules instead of a flat deny list: a flat list blocks every ZWJ and every
// U+FE0F, which refuses ordinary emoji ("❤️", "👩‍💻") and Indic/Persian text. Each invisible
// character is therefore allowed only in the exact position where it has a legitimate job:
//   - ZWJ U+200D: between two emoji (the left side may end in VS16 or a skin tone), or between
//     two letters/marks of a script that uses joiners (Arabic, Indic, …).
//   - ZWNJ U+200C: between two letters/marks of such a script.
//   - LRM/RLM U+200E/F: only when the text contains right-to-left letters.
//   - VS15/VS16 U+FE0E/F: directly after a code point that has an emoji presentation.
//   - VS1–VS14 U+FE00–FE0D: directly after a Han ideograph, a math symbol or a Myanmar letter.
//   - Ideographic variation selectors U+E0100–E01EF: directly after a Han ideograph.
//   - Tag characters U+E0020–E007F: only inside a subdivision flag (U+1F3F4, 2–7 tag digits or
//     lowercase tag letters, U+E007F cancel tag), e.g. the flag of England.
// Never two selectors in a row: runs of selectors are how data is smuggled in invisible text.
// Bidi embeddings/overrides (U+202A–202E) and isolates (U+2066–2069) are always suspicious.

export interface CharacterScan {
  readonly control: boolean;
  readonly suspiciousUnicode: boolean;
  /** Code-point index of the first control character, or -1. */
  readonly controlAt: number;
  /** Code-point index of the first suspicious invisible character, or -1. */
  readonly suspiciousAt: number;
}

const EXT_PICT = /\p{Extended_Pictographic}/u;
const EMOJI = /\p{Emoji}/u;
const EMOJI_MODIFIER = /\p{Emoji_Modifier}/u;
const JOINING_SCRIPT =
  /[\p{scx=Arabic}\p{scx=Syriac}\p{scx=Nko}\p{scx=Mongolian}\p{scx=Devanagari}\p{scx=Bengali}\p{scx=Gurmukhi}\p{scx=Gujarati}\p{scx=Oriya}\p{scx=Tamil}\p{scx=Telugu}\p{scx=Kannada}\p{scx=Malayalam}\p{scx=Sinhala}\p{scx=Khmer}\p{scx=Myanmar}\p{scx=Tibetan}]/u;
const LETTER_OR_MARK = /[\p{L}\p{M}]/u;
const RTL_LETTER = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;
const HAN = /\p{Script=Han}/u;
const VS_BASE_1_14 = /[\p{Script=Han}\p{Sm}\p{Script=Myanmar}]/u;

const VS16 = 0xfe0f;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;

function test(re: RegExp, cp: number | undefined): boolean {
  return cp !== undefined && re.test(String.fromCodePoint(cp));
}

function isVariationSelector(cp: number): boolean {
  return (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef);
}

function isJoiningLetter(cp: number | undefined): boolean {
  return test(LETTER_OR_MARK, cp) && test(JOINING_SCRIPT, cp);
}

/** The left side of an emoji ZWJ sequence: an emoji, possibly ending in VS16 or a skin tone. */
function isEmojiSide(prev: number | undefined, prevPrev: number | undefined): boolean {
  if (prev === VS16 || test(EMOJI_MODIFIER, prev)) return test(EXT_PICT, prevPrev);
  return test(EXT_PICT, prev);
}

function isSubdivisionTag(cp: number): boolean {
  return (cp >= 0xe0030 && cp <= 0xe0039) || (cp >= 0xe0061 && cp <= 0xe007a);
}

/**
 * Length in UTF-16 units of a well-formed subdivision flag tag run starting at `index` (just
 * after U+1F3F4), or 0 when the tags there do not form one.
 */
function subdivisionTagRun(text: string, index: number): number {
  let units = 0;
  let tags = 0;
  // At most 7 tags then the cancel tag: the loop never looks further than 8 code points.
  while (tags <= 7) {
    const cp = text.codePointAt(index + units);
    if (cp === undefined) return 0;
    if (cp === CANCEL_TAG) return tags >= 2 ? units + 2 : 0;
    if (!isSubdivisionTag(cp)) return 0;
    tags++;
    units += 2;
  }
  return 0;
}

function isAlwaysSuspicious(cp: number): boolean {
  return (
    (cp >= 0x202a && cp <= 0x202e) || // bidi embeddings and overrides
    (cp >= 0x2066 && cp <= 0x2069) || // bidi isolates
    (cp >= 0x2060 && cp <= 0x2064) || // word joiner, invisible math operators
    (cp >= 0x206a && cp <= 0x206f) || // deprecated format controls
    (cp >= 0xfff9 && cp <= 0xfffb) || // interlinear annotation
    (cp >= 0xe0000 && cp <= 0xe007f) || // tags outside a flag (flags are skipped before this)
    (cp >= 0xd800 && cp <= 0xdfff) || // a lone surrogate: not text at all
    cp === 0x034f || // combining grapheme joiner
    cp === 0x180e || // Mongolian vowel separator (invisible)
    cp === 0x115f ||
    cp === 0x1160 ||
    cp === 0x3164 ||
    cp === 0xffa0 // Hangul fillers, rendered blank
  );
}

function isVariationSelectorAllowed(cp: number, prev: number | undefined): boolean {
  if (prev === undefined || isVariationSelector(prev)) return false;
  if (cp === 0xfe0e || cp === VS16) return test(EMOJI, prev);
  if (cp >= 0xfe00 && cp <= 0xfe0d) return test(VS_BASE_1_14, prev);
  return test(HAN, prev);
}

/** One pass over `text`: whether it holds control or suspicious invisible characters, and where the first of each is. */
export function scanCharacters(text: string): CharacterScan {
  let control = false;
  let suspicious = false;
  let controlAt = -1;
  let suspiciousAt = -1;
  let index = 0;
  let hasRtl: boolean | undefined;
  let prev: number | undefined;
  let prevPrev: number | undefined;
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i) as number;
    let width = cp > 0xffff ? 2 : 1;
    if (cp === BLACK_FLAG) {
      width += subdivisionTagRun(text, i + width);
    } else if ((cp < 0x20 && cp !== 0x09 && cp !== 0x0a && cp !== 0x0d) || (cp >= 0x7f && cp <= 0x9f)) {
      control = true;
    } else if (cp === 0x200b || cp === 0x2028 || cp === 0x2029 || cp === 0xfeff) {
      control = true;
    } else if (cp === 0x200c || cp === 0x200d) {
      const next = text.codePointAt(i + 1);
      const joinsEmoji = cp === 0x200d && isEmojiSide(prev, prevPrev) && test(EXT_PICT, next);
      if (!joinsEmoji && !(isJoiningLetter(prev) && isJoiningLetter(next))) control = true;
    } else if (cp === 0x200e || cp === 0x200f) {
      hasRtl ??= RTL_LETTER.test(text);
      if (!hasRtl) control = true;
    } else if (isVariationSelector(cp)) {
      if (!isVariationSelectorAllowed(cp, prev)) suspicious = true;
    } else if (isAlwaysSuspicious(cp)) {
      suspicious = true;
    }
    if (control && controlAt < 0) controlAt = index;
    if (suspicious && suspiciousAt < 0) suspiciousAt = index;
    if (control && suspicious) break;
    prevPrev = prev;
    prev = cp;
    // Every code point but the first of a flag's tag run is astral (two units each).
    index += cp > 0xffff ? 1 + (width - 2) / 2 : 1;
    i += width;
  }
  return { control, suspiciousUnicode: suspicious, controlAt, suspiciousAt };
}
