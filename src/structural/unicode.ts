// Control and invisible-character screening (the filter's second and third checks):
// `scanCharacters(text)` walks the text once and reports whether it holds control characters and
// suspicious invisible Unicode. Not a flat deny list, which would refuse ordinary emoji ("❤️",
// "👩‍💻") and Indic/Persian text: each invisible character is allowed only where it has a job:
//   - ZWJ U+200D between two emoji (the left may end in VS16 or a skin tone); ZWJ and ZWNJ U+200C
//     between two letters/marks of a script that uses joiners (Arabic, Indic, …), or after a
//     virama whatever follows (since rules version 5: Malayalam's chillu letters end words so);
//   - LRM/RLM U+200E/F only in a text with right-to-left letters;
//   - VS15/VS16 right after an emoji; VS1–VS14 after a Han ideograph, math symbol or Myanmar
//     letter; ideographic selectors U+E0100–E01EF after a Han ideograph; never two selectors in a
//     row (runs of selectors smuggle data);
//   - tags U+E0020–E007F only in a subdivision flag (U+1F3F4, 2–7 tag digits or lowercase tag
//     letters, cancel tag U+E007F), e.g. the flag of England.
// Bidi embeddings/overrides (U+202A–202E) and isolates (U+2066–2069) are always suspicious.
//
// Tab, line feed and carriage return are white space, and (since rules version 5) so is a form
// feed on a line of its own or at a line's end or start: the page break of source files and
// RFCs. Inside a line it could split a word ("ig\fnore"), so there it counts.
//
// Two benign traces are not control characters (rules version 4, docs/detection.md):
//   - ZWSP U+200B and ZWNBSP/BOM U+FEFF in a run of at most two next to white space
//     ("58°N\uFEFF / \uFEFF8°W" in Wikipedia coordinates), where they split no word. Inside a
//     word, at the start of the text, in longer runs or beyond a budget (hidden bits) they count;
//   - a C1 control that is one byte of a well-formed UTF-8 sequence read as Latin-1 ("â\u0080\u0099"
//     for "’") encoding visible text. A lone one, or one encoding a control or format character, counts.

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
/** The viramas of the Indic scripts (and Sinhala's al-lakuna, Myanmar's asat and virama, Khmer's coeng): a joiner after one shapes the consonant before it. */
const VIRAMA: ReadonlySet<number> = new Set([0x094d, 0x09cd, 0x0a4d, 0x0acd, 0x0b4d, 0x0bcd, 0x0c4d, 0x0ccd, 0x0d4d, 0x0dca, 0x1039, 0x103a, 0x17d2]);
const RTL_LETTER = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;
const HAN = /\p{Script=Han}/u;
const VS_BASE_1_14 = /[\p{Script=Han}\p{Sm}\p{Script=Myanmar}]/u;

const VS16 = 0xfe0f;
/** The most zero-width characters next to white space in one run that are taken as a trace of copy and paste. */
const WHITESPACE_ZW_RUN = 2;
const WHITE_SPACE = /\s/u;
/** What a mis-decoded UTF-8 sequence may stand for: visible text, never a control or format character. */
const VISIBLE = /[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]/u;
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

/** Form feeds in a row that can still be one page break (a longer run is a carrier, and its scan stays short). */
const PAGE_BREAK_RUN = 4;

/** Whether the form feed at `i` breaks a page: a line break, or the text's start or end, on one side of it (a few other form feeds aside). */
function pageBreakAt(text: string, i: number): boolean {
  let before = i - 1;
  while (before >= 0 && before > i - PAGE_BREAK_RUN && text.charCodeAt(before) === 0x0c) before--;
  let after = i + 1;
  while (after < text.length && after < i + PAGE_BREAK_RUN && text.charCodeAt(after) === 0x0c) after++;
  const lineEnd = (at: number): boolean => at < 0 || at >= text.length || text.charCodeAt(at) === 0x0a || text.charCodeAt(at) === 0x0d;
  return lineEnd(before) || lineEnd(after);
}

/** The left side of an emoji ZWJ sequence: an emoji, possibly ending in VS16 or a skin tone. */
function isEmojiSide(prev: number | undefined, prevPrev: number | undefined): boolean {
  if (prev === VS16 || test(EMOJI_MODIFIER, prev)) return test(EXT_PICT, prevPrev);
  return test(EXT_PICT, prev);
}

/** UTF-16 length of the well-formed subdivision flag tag run at `index` (just after U+1F3F4), or 0. */
function subdivisionTagRun(text: string, index: number): number {
  let units = 0;
  let tags = 0;
  // At most 7 tags then the cancel tag: the loop never looks further than 8 code points.
  while (tags <= 7) {
    const cp = text.codePointAt(index + units);
    if (cp === undefined) return 0;
    if (cp === CANCEL_TAG) return tags >= 2 ? units + 2 : 0;
    // A tag digit or lowercase tag letter.
    if (!((cp >= 0xe0030 && cp <= 0xe0039) || (cp >= 0xe0061 && cp <= 0xe007a))) return 0;
    tags++;
    units += 2;
  }
  return 0;
}

function isZeroWidthSpace(unit: number): boolean {
  return unit === 0x200b || unit === 0xfeff;
}

/** Whether the U+200B/U+FEFF at `index` is in a run of at most WHITESPACE_ZW_RUN with white space right before or after it. */
function zeroWidthNextToSpace(text: string, index: number): boolean {
  let start = index;
  // Both walks stop one past the longest run allowed, so a longer run is seen without reading it all.
  while (start > 0 && isZeroWidthSpace(text.charCodeAt(start - 1)) && index - start < WHITESPACE_ZW_RUN) start--;
  let end = index + 1;
  while (end < text.length && isZeroWidthSpace(text.charCodeAt(end)) && end - start <= WHITESPACE_ZW_RUN) end++;
  if (end - start > WHITESPACE_ZW_RUN || isZeroWidthSpace(text.charCodeAt(start - 1))) return false;
  return WHITE_SPACE.test(text.charAt(start - 1)) || WHITE_SPACE.test(text.charAt(end));
}

/** Number of UTF-8 bytes a lead byte announces (2–4), or 0 for a byte that cannot lead a multi-byte sequence. */
function utf8Length(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** The code point that `bytes` encode as well-formed UTF-8 (no overlong form, no surrogate), or -1. */
function decodeUtf8(bytes: readonly number[]): number {
  const [lead = 0, second = 0] = bytes;
  if (bytes.slice(1).some((b) => b < 0x80 || b > 0xbf)) return -1;
  if (bytes.length === 2) return ((lead & 0x1f) << 6) | (second & 0x3f);
  // The second byte's range rules out overlong forms, surrogates and code points above U+10FFFF.
  if ((lead === 0xe0 && second < 0xa0) || (lead === 0xed && second > 0x9f)) return -1;
  if ((lead === 0xf0 && second < 0x90) || (lead === 0xf4 && second > 0x8f)) return -1;
  let cp = lead & (bytes.length === 3 ? 0x0f : 0x07);
  for (const b of bytes.slice(1)) cp = (cp << 6) | (b & 0x3f);
  return cp;
}

/** Whether the C1 control at `index` continues a UTF-8 sequence read as Latin-1 (mojibake) that encodes visible text; looks three units back at most. */
function misdecodedUtf8At(text: string, index: number): boolean {
  for (let start = index - 1; start >= 0 && start >= index - 3; start--) {
    const length = utf8Length(text.charCodeAt(start));
    if (length === 0) {
      if (text.charCodeAt(start) < 0x80 || text.charCodeAt(start) > 0xbf) return false;
      continue;
    }
    if (start + length <= index || start + length > text.length) return false;
    const bytes: number[] = [];
    for (let k = start; k < start + length; k++) bytes.push(text.charCodeAt(k));
    const cp = decodeUtf8(bytes);
    return cp > 0x9f && VISIBLE.test(String.fromCodePoint(cp));
  }
  return false;
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
  let whitespaceZeroWidth = 0;
  // The most zero-width characters next to white space a text may hold before they count as control
  // characters: 16, plus one per 32 characters (a Wikipedia table holds one per 66 to 90). More is a
  // carrier of hidden bits, not a trace.
  const budget = 16 + Math.floor(text.length / 32);
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i) as number;
    let width = cp > 0xffff ? 2 : 1;
    if (cp === BLACK_FLAG) {
      width += subdivisionTagRun(text, i + width);
    } else if ((cp < 0x20 && cp !== 0x09 && cp !== 0x0a && cp !== 0x0d && !(cp === 0x0c && pageBreakAt(text, i))) || cp === 0x7f) {
      control = true;
    } else if (cp >= 0x80 && cp <= 0x9f) {
      if (!misdecodedUtf8At(text, i)) control = true;
    } else if (isZeroWidthSpace(cp)) {
      if (!zeroWidthNextToSpace(text, i) || ++whitespaceZeroWidth > budget) control = true;
    } else if (cp === 0x2028 || cp === 0x2029) {
      control = true;
    } else if (cp === 0x200c || cp === 0x200d) {
      const next = text.codePointAt(i + 1);
      const joinsEmoji = cp === 0x200d && isEmojiSide(prev, prevPrev) && test(EXT_PICT, next);
      // After a virama it may also end a word (Malayalam's chillu letters are written so:
      // "പ്രവീണ്\u200d "), but not run on into a letter of another script ("Igक्\u200dnore").
      const endsWord = prev !== undefined && VIRAMA.has(prev) && !test(LETTER_OR_MARK, next);
      if (!joinsEmoji && !(isJoiningLetter(prev) && (isJoiningLetter(next) || endsWord))) control = true;
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
