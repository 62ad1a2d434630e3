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
import { utf8CodePointsOutsideControls } from "./codepoints.js";
import type { Shape, StringLeftAsBytes } from "./parse-line.js";

/** The text is not canonical (or not what `shape` builds whole): read it strictly. */
export const NOT_CANONICAL: unique symbol = Symbol("not canonical");

/**
 * The parsed value of `bytes` when they are canonical JSON that `shape` builds whole within
 * `limits` (values built, containers and scalars, and container nesting below it), else NOT_CANONICAL.
 */
export function canonicalValue(bytes: Buffer, shape: Shape, limits: ValueLimits): unknown {
  if (mayHoldMoreValues(bytes, bytes.length, limits.maxValues) || !isUtf8(bytes)) return NOT_CANONICAL;
  const text = bytes.toString("utf8");
  if (hasSurrogateEscape(text)) return NOT_CANONICAL;
  try {
    const value: unknown = JSON.parse(text);
    return fits(value, shape, limits) && serializesTo(value, text, bytes) ? value : NOT_CANONICAL;
  } catch {
    return NOT_CANONICAL;
  }
}

/** What canonicalValue holds a value to: values built (containers and scalars), and nesting. */
export interface ValueLimits {
  readonly maxValues: number;
  readonly maxDepth: number;
}

/** Whether a parsed value has sorted keys everywhere and is built whole by its shape, within the limits. */
function fits(value: unknown, shape: Shape, limits: ValueLimits): boolean {
  let values = 0;
  const walk = (node: unknown, at: Shape, depth: number): boolean => {
    if (++values > limits.maxValues) return false;
    const type = node === null ? "null" : typeof node;
    if (type === "string" || type === "number" || type === "boolean" || type === "null") return at.scalars.has(type);
    if (depth >= limits.maxDepth) return false;
    if (Array.isArray(node)) {
      const items = at.array?.items;
      return items !== undefined && node.every((item) => walk(item, items, depth + 1));
    }
    const object = at.object;
    if (object === undefined) return false;
    const record = node as Record<string, unknown>;
    let previous: string | null = null;
    for (const key of Object.keys(record)) {
      if (previous !== null && !(previous < key)) return false;
      previous = key;
      if (!walk(record[key], object.fields?.get(key) ?? object.rest, depth + 1)) return false;
    }
    return true;
  };
  return walk(value, shape, 0);
}

/** What reads an element leaving one string as bytes (stringLeavingRead). */
export type StringLeavingRead = (
  bytes: Buffer,
  shape: Shape,
  limits: ValueLimits,
) => { readonly value: unknown; readonly left: StringLeftAsBytes | null } | typeof NOT_CANONICAL;

/**
 * A read like canonicalValue that leaves the object's last member as bytes (StringLeftAsBytes)
 * when it is a string under `key` of at least LONG_LAST_STRING bytes written with no escape: the
 * bulk of an export record, its text. The rest is parsed and checked as canonicalValue checks it, with `""` for the string. Why that is the same decision: the string's
 * bytes hold no quote, backslash or control character, so the parse would read exactly them as
 * the last member's string, and JSON.stringify would write them back unchanged (strict UTF-8
 * holds no lone surrogate); a key repeated before it, or keys out of order, still make the rest
 * serialize differently. Any other element is read by canonicalValue (`left` null).
 */
export function stringLeavingRead(key: string): StringLeavingRead {
  // The member's opening as it is written, `,"<key>":"` (another member always comes before it).
  const member = Buffer.from(`,${JSON.stringify(key)}:"`, "utf8");
  return (bytes, shape, limits) => leavingString(bytes, shape, limits, key, member);
}

/** The read of stringLeavingRead, `member` being the key's opening as written. */
function leavingString(bytes: Buffer, shape: Shape, limits: ValueLimits, key: string, member: Buffer): ReturnType<StringLeavingRead> {
  const open = bytes.lastIndexOf(member) + member.length - 1;
  const close = bytes.length - 2;
  const plain =
    open >= member.length &&
    close - open > LONG_LAST_STRING &&
    bytes[close] === QUOTE &&
    bytes[close + 1] === CLOSE_BRACE &&
    bytes.indexOf(QUOTE, open + 1) === close &&
    bytes.indexOf(BACKSLASH, open + 1) === -1;
  const length = plain && isUtf8(bytes) ? utf8CodePointsOutsideControls(bytes, open + 1, close) : null;
  if (length === null) {
    const value = canonicalValue(bytes, shape, limits);
    return value === NOT_CANONICAL ? NOT_CANONICAL : { value, left: null };
  }
  if (mayHoldMoreValues(bytes, open, limits.maxValues)) return NOT_CANONICAL;
  // The object with the string emptied: `{…,"<key>":""}`.
  const rest = `${bytes.toString("utf8", 0, open + 1)}"}`;
  if (hasSurrogateEscape(rest)) return NOT_CANONICAL;
  let value: unknown;
  try {
    value = JSON.parse(rest);
  } catch {
    return NOT_CANONICAL;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return NOT_CANONICAL;
  const keys = Object.keys(value);
  if (keys[keys.length - 1] !== key || !fits(value, shape, limits) || JSON.stringify(value) !== rest) return NOT_CANONICAL;
  return { value, left: { key, json: bytes.subarray(open, close + 1), length } };
}

/**
 * Whether the JSON text in `bytes` up to `end` may hold more than `maxValues` values, so that
 * JSON.parse would build more than the limit allows before it could be counted (a record of
 * `{}`s builds some 100 bytes of heap for every 3 it has). A value is at least one byte, and every
 * one but the first follows a separator, so fewer than 2 × maxValues bytes hold no more; in a
 * longer text every value but the outermost follows a comma or opens its container, so commas and
 * opening brackets outside strings (plus one) bound the count. Such a text is read strictly, which
 * counts as it builds.
 */
function mayHoldMoreValues(bytes: Buffer, end: number, maxValues: number): boolean {
  if (end + 1 <= 2 * maxValues) return false;
  let bound = 1;
  for (let i = 0; i < end; i++) {
    const unit = bytes[i] as number;
    if (unit === QUOTE) {
      for (i++; i < end; i++) {
        const inner = bytes[i] as number;
        if (inner === BACKSLASH) i++;
        else if (inner === QUOTE) break;
      }
    } else if ((unit === COMMA || unit === OPEN_BRACE || unit === OPEN_BRACKET) && ++bound > maxValues) {
      return true;
    }
  }
  return false;
}

/** Shortest last string worth serializing apart (an export record's text; a digest is not). */
const LONG_LAST_STRING = 256;

/**
 * Whether `JSON.stringify(value) === text`, where `value` is what `JSON.parse` made of `text` and
 * `bytes` are its strict UTF-8. An object whose last member is a long string (an export record's
 * `text`, most of its bytes) is compared without serializing that string again: the rest is
 * serialized with the string empty, which must be exactly the text up to the string's opening
 * quote (`…,"text":"`); the parse then read the string from there (canonicalStringTo), and when
 * its bytes are written as `JSON.stringify` writes them, the whole comes back as `text`.
 */
function serializesTo(value: unknown, text: string, bytes: Buffer): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return JSON.stringify(value) === text;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const last = keys[keys.length - 1];
  const tail = last === undefined ? undefined : record[last];
  if (last === undefined || typeof tail !== "string" || tail.length < LONG_LAST_STRING) return JSON.stringify(value) === text;
  const emptied = JSON.stringify({ ...record, [last]: "" });
  const head = emptied.slice(0, emptied.length - 2);
  if (!text.startsWith(head)) return false;
  if (canonicalStringTo(bytes, Buffer.byteLength(head, "utf8"))) return true;
  // Not written as JSON.stringify writes a string (or not where expected): compare the whole.
  return JSON.stringify(value) === text;
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
/**
 * Byte tables: the letters after a backslash in the escapes JSON.stringify writes by letter (for a
 * quote, a backslash, and b f n r t), and the control characters it writes so (never as `u00XX`).
 */
const LETTER_ESCAPES = byteTable([0x22, 0x5c, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const LETTERED_CONTROLS = byteTable([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

/** A table of 256 entries, 1 for each byte of `set`: membership by one index instead of a comparison chain. */
export function byteTable(set: readonly number[]): Uint8Array {
  const table = new Uint8Array(256);
  for (const byte of set) table[byte] = 1;
  return table;
}

/**
 * Whether the string that starts at byte `from` (after its opening quote) runs to the quote
 * before the final brace, every escape in it the one JSON.stringify writes: a letter for a quote,
 * a backslash and \b \f \n \r \t, and `\u00xx` (lowercase) for any other control character.
 * The parse read these bytes as a string, so the characters between the escapes are written raw
 * by JSON.stringify too: no quote or backslash (those start an escape or end the string), no
 * control character (the grammar refuses them raw), no lone surrogate (strict UTF-8 has none).
 */
function canonicalStringTo(bytes: Buffer, from: number): boolean {
  const close = bytes.length - 2;
  if (close < from || bytes[close] !== QUOTE || bytes[close + 1] !== CLOSE_BRACE) return false;
  let at = from;
  // The next quote from `at` on, found again only once passed (an escaped quote): one scan in all.
  let quote = bytes.indexOf(QUOTE, at);
  for (;;) {
    if (quote < at) quote = bytes.indexOf(QUOTE, at);
    const backslash = bytes.indexOf(BACKSLASH, at);
    if (backslash === -1 || backslash > quote) return quote === close;
    const letter = bytes[backslash + 1] as number;
    if (LETTER_ESCAPES[letter] === 1) {
      at = backslash + 2;
      continue;
    }
    if (letter !== 0x75 || bytes[backslash + 2] !== 0x30 || bytes[backslash + 3] !== 0x30) return false;
    const high = bytes[backslash + 4] as number;
    const low = bytes[backslash + 5] as number;
    const lowValue = low >= 0x30 && low <= 0x39 ? low - 0x30 : low >= 0x61 && low <= 0x66 ? low - 0x61 + 10 : -1;
    if ((high !== 0x30 && high !== 0x31) || lowValue === -1 || LETTERED_CONTROLS[(high - 0x30) * 16 + lowValue] === 1) return false;
    at = backslash + 6;
  }
}

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
