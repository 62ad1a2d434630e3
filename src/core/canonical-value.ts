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
    return fits(value, shape, 0) && JSON.stringify(value) === text ? value : NOT_CANONICAL;
  } catch {
    return NOT_CANONICAL;
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
