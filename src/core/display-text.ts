// User-controlled strings (paths, ids, model names, URLs) as they may appear in a message on a
// terminal or in a CI log. A file name may hold a line break followed by `::error …`, and a CI
// runner reads every line of a step's output that starts with `::` as a command (GitHub's
// `::add-mask::`, `::stop-commands::`…); other control characters rewrite a terminal. So every
// message that interpolates such a string uses `displayText` (its result never holds a line break
// and never starts a line with `::`), and `neutraliseCommandLines` is the last line of defence
// where a whole message is written (the CLI's stderr).

/** Characters never shown raw: C0, DEL, C1, ALM, LRM/RLM, the line and paragraph separators, bidi embeddings, overrides and isolates. */
const UNSAFE_CHARS = "\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069";
const HAS_UNSAFE = new RegExp(`[${UNSAFE_CHARS}]`, "u");
const EACH_UNSAFE = new RegExp(`[${UNSAFE_CHARS}]`, "gu");
const STARTS_WITH_COLON = /^\s*:/u;

/** `\uXXXX` for one UTF-16 code unit. */
const escapeUnit = (char: string): string => `\\u${(char.charCodeAt(0) as number).toString(16).padStart(4, "0")}`;

/**
 * `value` fit to be put in a message: unchanged when it is safe to show, else JSON-quoted with
 * every control, separator and bidi character escaped (see the file comment).
 */
export function displayText(value: string): string {
  if (!HAS_UNSAFE.test(value) && !STARTS_WITH_COLON.test(value) && value.isWellFormed()) return value;
  return quotedText(value);
}

/**
 * `value` JSON-quoted for a message that always quotes it: `JSON.stringify` (which escapes C0,
 * quotes, backslashes and lone surrogates) with DEL, C1, the separators and bidi controls, which
 * JSON keeps raw, escaped as well.
 */
export function quotedText(value: string): string {
  return JSON.stringify(value).replace(EACH_UNSAFE, escapeUnit);
}

/**
 * `value` with every control, separator and bidi character (the set `displayText` never shows
 * raw) written as a `\uXXXX` escape and nothing else changed: for text that has its own quoting
 * rules (a workflow command's `%` escapes) but must not carry such a character raw.
 */
export function escapeUnsafeChars(value: string): string {
  return value.replace(EACH_UNSAFE, escapeUnit);
}

/** Whatever a reader of a log may take for a line break (.NET's readers end a line at a lone CR too). */
const LINE_BREAKS = "\\n\\r\\v\\f\\u0085\\u2028\\u2029";
/** A line break that a line starting with `::` (after blanks) follows. */
const BREAK_BEFORE_COMMAND = new RegExp(`[${LINE_BREAKS}](?=\\s*::)`, "gu");
/** Separators no message writes on purpose: escaped wherever they are. */
const RARE_BREAKS = /[\v\f\u0085\u2028\u2029]/gu;

/**
 * `text` (one message, written whole) with every line break escaped that would start a line
 * beginning with `::`, and the rare separators (VT, FF, NEL, U+2028, U+2029) escaped everywhere;
 * its first line and ordinary line breaks are kept, so multi-line help and progress lines work.
 */
export function neutraliseCommandLines(text: string): string {
  return text.replace(BREAK_BEFORE_COMMAND, escapeUnit).replace(RARE_BREAKS, escapeUnit);
}

// JSON of values that may hold hostile case text, inert in a terminal or editor: besides what JSON.stringify
// escapes, the characters that can reorder or hide text (C1, bidi, zero-width, separators, BOM). Outside
// strings JSON text is ASCII and an escape denotes the same value, so a global replace is exact.
const INVISIBLE = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;
const NON_ASCII = /[^\x20-\x7e]/g;

/** JSON text of `value` (by `serialise`) with every character `pattern` matches written as a `\uXXXX` escape. */
function escapedJson(value: unknown, pattern: RegExp, serialise: (value: unknown) => string | undefined = JSON.stringify): string {
  const text = serialise(value);
  if (text === undefined) throw new TypeError("value is not JSON-serialisable");
  return text.replace(pattern, escapeUnit);
}

/** JSON text with invisible and reordering characters escaped (for files: JSONL lines). */
export function inertJson(value: unknown): string {
  return escapedJson(value, INVISIBLE);
}

/**
 * JSON text that is pure printable ASCII (for anything shown on stdout or stderr); `serialise`
 * replaces JSON.stringify (the demo's sorted-key documents).
 */
export function asciiJson(value: unknown, serialise?: (value: unknown) => string | undefined): string {
  return escapedJson(value, NON_ASCII, serialise);
}
