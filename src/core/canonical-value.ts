// The fast check of one JSON text that should be canonical (a manifest or export record as
// little-canary writes it): the value when the bytes are exactly the canonical serialization of
// what `JSON.parse` makes of them, else NOT_CANONICAL (the caller then reads them with the strict
// grammar, which reports exactly what is wrong).
//
// Why this is as strict as the strict grammar for the texts it accepts: `JSON.stringify` of the
// parsed value equal to the text means no whitespace, minimal escapes and shortest numbers (`1.0`,
// `-0`, `1e400` and integers past 2^53 all re-serialize differently), and no duplicate key (the
// parse keeps only the last, so the text comes back shorter). Keys in code-unit order in every
// object make that serialization the canonical one (core/canonical.ts sorts the same way; V8 puts
// integer-like keys first, which this order refuses, so such objects take the strict path). What
// `JSON.stringify` writes back unchanged but the canonical form refuses is checked here: the
// bytes are strict UTF-8 (`isUtf8`), no escaped lone surrogate (`\udXXX`), bounded nesting. And
// the value is what the strict grammar would build under `shape` (nothing it would skip) within
// `maxValues`, so a caller cannot tell which path read it. A `__proto__` key is an own data
// property either way, as with the strict grammar.
import { isUtf8 } from "node:buffer";
import type { Shape } from "./parse-line.js";

/** The text is not canonical (or not what `shape` builds whole): read it strictly. */
export const NOT_CANONICAL: unique symbol = Symbol("not canonical");

/**
 * The parsed value of `bytes` when they are canonical JSON that `shape` builds whole within
 * `limits` (values built, containers and scalars, and container nesting below it), else NOT_CANONICAL.
 */
export function canonicalValue(bytes: Buffer, shape: Shape, limits: { readonly maxValues: number; readonly maxDepth: number }): unknown {
  if (!isUtf8(bytes)) return NOT_CANONICAL;
  const text = bytes.toString("utf8");
  if (hasSurrogateEscape(text)) return NOT_CANONICAL;
  // Whether a parsed value has sorted keys everywhere and is built whole by its shape, within the limits.
  let values = 0;
  const fits = (node: unknown, at: Shape, depth: number): boolean => {
    if (++values > limits.maxValues) return false;
    const type = node === null ? "null" : typeof node;
    if (type === "string" || type === "number" || type === "boolean" || type === "null") return at.scalars.has(type);
    if (depth >= limits.maxDepth) return false;
    if (Array.isArray(node)) {
      const items = at.array?.items;
      return items !== undefined && node.every((item) => fits(item, items, depth + 1));
    }
    const object = at.object;
    if (object === undefined) return false;
    const record = node as Record<string, unknown>;
    let previous: string | null = null;
    for (const key of Object.keys(record)) {
      if (previous !== null && !(previous < key)) return false;
      previous = key;
      if (!fits(record[key], object.fields?.get(key) ?? object.rest, depth + 1)) return false;
    }
    return true;
  };
  try {
    const value: unknown = JSON.parse(text);
    return fits(value, shape, 0) && serializesTo(value, text, bytes) ? value : NOT_CANONICAL;
  } catch {
    return NOT_CANONICAL;
  }
}

/** Shortest last string worth serializing apart (an export record's text; a digest is not). */
const LONG_LAST_STRING = 256;

/**
 * Whether `JSON.stringify(value) === text`, where `value` is what `JSON.parse` made of `text` and
 * `bytes` are its strict UTF-8. An object whose last member is a long string (an export record's
 * `text`, most of its bytes) is compared without serializing that string again: the rest is
 * serialized with the string empty, which must be exactly the text up to the string's opening
 * quote; when the string's bytes from there hold no backslash and no quote but the closing one
 * before the final brace, the parse read those bytes as the string itself (no escape, and no
 * control character, which the grammar refuses raw; strict UTF-8 has no lone surrogate), and
 * `JSON.stringify` writes such a string back unchanged, so the whole comes back as `text`. A
 * string with an escape is compared by serializing the whole.
 */
function serializesTo(value: unknown, text: string, bytes: Buffer): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return JSON.stringify(value) === text;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const last = keys[keys.length - 1];
  const tail = last === undefined ? undefined : record[last];
  if (last === undefined || typeof tail !== "string" || tail.length < LONG_LAST_STRING) return JSON.stringify(value) === text;
  const emptied = JSON.stringify({ ...record, [last]: "" });
  // Up to and including the string's opening quote (`…,"text":"`), the text is the rest's serialization.
  const head = emptied.slice(0, emptied.length - 2);
  if (!text.startsWith(head)) return false;
  if (text.length === head.length + tail.length + 2 && text.endsWith('"}')) {
    const raw = bytes.subarray(Buffer.byteLength(head, "utf8"), bytes.length - 2);
    if (raw.indexOf(BACKSLASH) === -1 && raw.indexOf(QUOTE) === -1) return true;
  }
  // The string holds an escape (canonical for a control character, a quote or a backslash).
  return JSON.stringify(value) === text;
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;

/** A `\ud…` escape (a surrogate written as an escape: canonical text has none, paired or not). */
function hasSurrogateEscape(text: string): boolean {
  for (let at = text.indexOf("\\ud"); at !== -1; at = text.indexOf("\\ud", at + 1)) {
    // The backslash escapes the `u` only when the run of backslashes ending here is odd.
    let run = 1;
    while (at - run >= 0 && text.charCodeAt(at - run) === 0x5c) run++;
    if (run % 2 === 1) return true;
  }
  return false;
}
