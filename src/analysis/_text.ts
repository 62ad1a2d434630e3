// Text preparation for the analyzer's rules. A canary reply is hostile: rules match a normalised
// copy, so case, fullwidth forms, format characters, curly apostrophes and markdown emphasis
// cannot hide a phrase, and whitespace runs are one character (no unbounded `\s+`). All linear.
import { truncateCodePoints } from "../core/codepoints.js";

const APOSTROPHES = /[\u2018\u2019\u201A\u201B\u2032\u02BC\u02B9\u0060\u00B4]/gu;
const QUOTES = /[\u201C\u201D\u201E\u201F\u2033\u00AB\u00BB]/gu;
const FORMAT_CHARS = /\p{Cf}/gu;
const EMPHASIS = /[*_~]/gu;
const WHITESPACE_RUN = /\s+/gu;

function collapseWhitespace(text: string): string {
  // A run containing a line break becomes "\n" so per-line anchors keep working.
  return text.replace(WHITESPACE_RUN, (run) => (run.includes("\n") ? "\n" : " "));
}

/** The form phrase rules read: NFKC, no format characters, straight quotes, lowercase, no emphasis, one-character whitespace runs, trimmed. */
export function normalizeForMatching(text: string): string {
  const folded = (PLAIN_ASCII.test(text) ? text.replace(BACKTICK, "'") : unicodeFolded(text).replace(APOSTROPHES, "'")).toLowerCase().replace(EMPHASIS, "");
  return collapseWhitespace(folded).trim();
}

// Printable ASCII and whitespace: NFKC, format-character removal and curly-quote folding are
// identities on it, so those passes are skipped (the backtick is the only ASCII apostrophe form).
const PLAIN_ASCII = /^[\t\n\v\f\r\x20-\x7e]*$/;
const BACKTICK = /`/g;

function unicodeFolded(text: string): string {
  return text.normalize("NFKC").replace(FORMAT_CHARS, "").replace(QUOTES, '"');
}

/** The form tool-call rules read: like normalizeForMatching but keeping underscores, backticks and emphasis characters. */
export function normalizeForSyntax(text: string): string {
  return collapseWhitespace((PLAIN_ASCII.test(text) ? text : unicodeFolded(text)).toLowerCase());
}

/** At most `max` code points of `text` starting at UTF-16 index `unitIndex`, never mid-pair. */
export function excerptAt(text: string, unitIndex: number, max: number): string {
  let start = Math.max(0, Math.min(Math.trunc(unitIndex), text.length));
  // Never start on the second half of a surrogate pair.
  const unit = text.charCodeAt(start);
  if (start > 0 && unit >= 0xdc00 && unit <= 0xdfff) start -= 1;
  return truncateCodePoints(text.slice(start, start + 2 * max), max);
}

const SENTENCE_BREAK = new Set([".", "!", "?", "\n"]);
/** How far (in UTF-16 units) a sentence window reaches either side of a match. */
const SENTENCE_REACH = 240;

/** UTF-16 bounds of the sentence around `[start, end)`, each side bounded by SENTENCE_REACH (a fixed cost without punctuation). */
export function sentenceBounds(text: string, start: number, end: number): { readonly from: number; readonly to: number } {
  let from = start;
  const floor = Math.max(0, start - SENTENCE_REACH);
  while (from > floor && !SENTENCE_BREAK.has(text.charAt(from - 1))) from -= 1;
  let to = end;
  const ceiling = Math.min(text.length, end + SENTENCE_REACH);
  while (to < ceiling && !SENTENCE_BREAK.has(text.charAt(to))) to += 1;
  return { from, to };
}
