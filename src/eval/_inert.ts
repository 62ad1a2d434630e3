// Serialising values that may hold hostile case text so that it stays inert when a file is
// viewed in a terminal or an editor. JSON.stringify already escapes C0 controls and lone
// surrogates; these helpers also escape the characters that can reorder or hide text on screen
// (C1 controls, bidi overrides and isolates, zero-width marks, line/paragraph separators, BOM).
// Escaping inside a JSON string never changes the value it denotes, and outside strings JSON
// text is ASCII, so a global replace is exact.

const INVISIBLE = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;
const NON_ASCII = /[^\x20-\x7e]/g;

/** JSON text of `value` with every character `pattern` matches written as a `\uXXXX` escape. */
function escapedJson(value: unknown, pattern: RegExp): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError("value is not JSON-serialisable");
  return text.replace(pattern, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** JSON text with invisible and reordering characters escaped (for files: JSONL lines). */
export function inertJson(value: unknown): string {
  return escapedJson(value, INVISIBLE);
}

/** JSON text that is pure printable ASCII (for anything shown on stdout or stderr). */
export function asciiJson(value: unknown): string {
  return escapedJson(value, NON_ASCII);
}
