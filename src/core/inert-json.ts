// Serialising values that may hold hostile case text so that it stays inert in a terminal or an
// editor: besides what JSON.stringify escapes (C0 controls, lone surrogates), the characters that
// can reorder or hide text (C1 controls, bidi controls, zero-width marks, separators, BOM). Outside
// strings JSON text is ASCII and an escape denotes the same value, so a global replace is exact.

const INVISIBLE = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;
const NON_ASCII = /[^\x20-\x7e]/g;

/** JSON text of `value` (by `serialise`) with every character `pattern` matches written as a `\uXXXX` escape. */
function escapedJson(value: unknown, pattern: RegExp, serialise: (value: unknown) => string | undefined = JSON.stringify): string {
  const text = serialise(value);
  if (text === undefined) throw new TypeError("value is not JSON-serialisable");
  return text.replace(pattern, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
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
