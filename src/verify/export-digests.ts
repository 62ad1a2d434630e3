// The two digests verify recomputes for every export record (`sha256` of its text and
// `material_sha256` of its material), taken from the record's own bytes when the fast reader proved
// them canonical. The text is then already there as UTF-8 between two quotes, so it is hashed
// where it lies instead of being converted from a JavaScript string, and the material's canonical
// JSON is the composer's head (materialJson, everything before the text) followed by those same
// bytes. This is the bulk of an export's bytes: hashed once each, and never copied.
import { createHash } from "node:crypto";
import { sha256Hex } from "../core/hash.js";
import { materialJson } from "../documents/material-hash.js";

/** What an export record's digests are computed from: its fields (checked usable by the caller). */
export interface ExportMaterial {
  readonly id: string | null;
  readonly source: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly text: string;
}

/** `sha256` and `material_sha256` of an export record's text and material, lowercase hex. */
export interface ExportDigests {
  readonly text: string;
  readonly material: string;
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
/** How a canonical export record ends: the text's closing quote and the record's brace. */
const CLOSE = '"}';

/**
 * The digests of `material`, the fields of export record `item`. `canonicalBytes`: the record's
 * bytes when they are exactly `JSON.stringify(item)` with `text` its last key (the fast reader's
 * proof, and the key order of every export record ingest writes), else undefined. The metadata
 * must be of canonical form (the caller checks it) and every string well-formed.
 */
export function exportDigests(item: object, material: ExportMaterial, canonicalBytes: Buffer | undefined): ExportDigests {
  const textJson = canonicalBytes === undefined ? null : textJsonOf(item, canonicalBytes);
  if (textJson === null) return { text: sha256Hex(material.text), material: sha256Hex(materialJson(material)) };
  // Between the quotes, bytes with no backslash are the text's UTF-8 itself (JSON.stringify writes
  // every other character as it is); with an escape, the text is hashed from the string instead.
  const inner = textJson.subarray(1, textJson.length - 1);
  const text = inner.includes(BACKSLASH) ? sha256Hex(material.text) : sha256Hex(inner);
  // The material's JSON is the composer's, whose text member comes last: its head, then the text's JSON.
  const emptyText = materialJson({ ...material, text: "" });
  const head = emptyText.slice(0, emptyText.length - CLOSE.length - 1);
  const digest = createHash("sha256").update(head, "utf8").update(textJson).update("}", "utf8").digest("hex");
  return { text, material: digest };
}

/**
 * The bytes of the text's JSON string inside `bytes`, or null when the record is not laid out so:
 * `text` is its last key, a string, and the bytes end with it and the closing brace. Its start is
 * the byte length of the record serialized with an empty text, less the `""}` that ends it.
 */
function textJsonOf(item: object, bytes: Buffer): Buffer | null {
  const keys = Object.keys(item);
  const text: unknown = (item as Record<string, unknown>)["text"];
  if (keys[keys.length - 1] !== "text" || typeof text !== "string") return null;
  const start = Buffer.byteLength(JSON.stringify({ ...item, text: "" }), "utf8") - CLOSE.length - 1;
  if (start < 0 || bytes[start] !== QUOTE || bytes[bytes.length - 2] !== QUOTE || bytes[bytes.length - 1] !== 0x7d) return null;
  return bytes.subarray(start, bytes.length - 1);
}
