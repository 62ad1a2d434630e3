// The two digests verify recomputes for every export record (`sha256` of its text and
// `material_sha256` of its material), and the text's length, taken from the record's own bytes
// when the fast reader proved them canonical. The text is then already there as UTF-8 between two
// quotes, so it is hashed where it lies instead of being converted from a JavaScript string, and
// the material's canonical JSON is the composer's head (materialJson, everything before the text)
// followed by those same bytes. This is the bulk of an export's bytes: hashed once each, and never
// copied.
import { createHash } from "node:crypto";
import { codePointLength, wellFormedLength } from "../core/codepoints.js";
import { sha256Hex } from "../core/hash.js";
import { materialJson } from "../documents/material-hash.js";
import type { MaterialSource } from "../documents/segment-material.js";
import type { StringLeftAsBytes } from "../core/parse-line.js";

/** An export record's text as verify checks it: a string, or the bytes the fast reader left it as. */
export class ExportText {
  #string: string | null;

  private constructor(
    string: string | null,
    /** The bytes of its JSON string within the record's canonical bytes (textJsonOf), or null. */
    readonly json: Buffer | null,
    /** Its code points, or null when it is not well-formed. */
    readonly length: number | null,
  ) {
    this.#string = string;
  }

  /** A text read as a string; `json`: its JSON string's bytes (textJsonOf), or null. */
  static of(text: string, json: Buffer | null): ExportText {
    return new ExportText(text, json, exportTextLength(text, json));
  }

  /**
   * A text the fast reader left as bytes (core/canonical-value.ts): strict UTF-8 with no escape,
   * so well-formed, its length counted from the bytes.
   */
  static left(left: StringLeftAsBytes): ExportText {
    return new ExportText(null, left.json, left.length);
  }

  /** Whether it was left as bytes, so `string` decodes it. */
  get leftAsBytes(): boolean {
    return this.#string === null;
  }

  /** The text as a string, decoded from its bytes the first time when it was left as bytes. */
  get string(): string {
    if (this.#string === null) {
      const json = this.json as Buffer;
      this.#string = json.toString("utf8", 1, json.length - 1);
    }
    return this.#string;
  }
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
 * The digests of an export record's material: its labels and metadata, and its text (`text`).
 * The metadata must be of canonical form (the caller checks it) and every string well-formed.
 */
export function exportDigests(labels: MaterialSource, text: ExportText): ExportDigests {
  const textJson = text.json;
  if (textJson === null) return { text: sha256Hex(text.string), material: sha256Hex(materialJson({ ...labels, text: text.string })) };
  // Between the quotes, bytes with no backslash are the text's UTF-8 itself (JSON.stringify writes
  // every other character as it is); with an escape, the text is hashed from the string instead.
  // A text left as bytes was proved to hold none (core/canonical-value.ts): not scanned again.
  const inner = textJson.subarray(1, textJson.length - 1);
  const textDigest = !text.leftAsBytes && inner.includes(BACKSLASH) ? sha256Hex(text.string) : sha256Hex(inner);
  // The material's JSON is the composer's, whose text member comes last: its head, then the text's JSON.
  const emptyText = materialJson({ ...labels, text: "" });
  const head = emptyText.slice(0, emptyText.length - CLOSE.length - 1);
  const digest = createHash("sha256").update(head, "utf8").update(textJson).update("}", "utf8").digest("hex");
  return { text: textDigest, material: digest };
}

/** How the text member begins when another member precedes it (always so in an export record). */
const TEXT_MEMBER = Buffer.from(',"text":"', "latin1");

/**
 * The code points of export text `text`, or null when it is not well-formed. `textJson`: its JSON
 * string's bytes (textJsonOf), or null. Bytes with no escape are the text's strict UTF-8, which
 * cannot encode a lone surrogate, and a surrogate pair stands for a character of four UTF-8
 * bytes, each led by a byte from F0 to F4: without such a byte the text's UTF-16 length is its
 * code points, found without scanning the string.
 */
export function exportTextLength(text: string, textJson: Buffer | null): number | null {
  if (textJson === null || textJson.includes(BACKSLASH)) return wellFormedLength(text);
  for (let lead = 0xf0; lead <= 0xf4; lead++) if (textJson.includes(lead)) return codePointLength(text);
  return text.length;
}

/**
 * The bytes of the text's JSON string inside `bytes` (the record's bytes, when they are exactly
 * the strict UTF-8 of `JSON.stringify(item)`: the fast reader's proof), or null when the record is
 * not laid out so: `text` is its last key, a string, and the bytes end with it and the closing
 * brace. Its member is the last `,"text":"` in the bytes: inside a JSON string every quote is
 * escaped, so `,"` occurs only between members, and the text member is the last one (a metadata
 * key `text` comes before it).
 */
export function textJsonOf(item: object, bytes: Buffer): Buffer | null {
  const keys = Object.keys(item);
  const text: unknown = (item as Record<string, unknown>)["text"];
  if (keys[keys.length - 1] !== "text" || typeof text !== "string") return null;
  const member = bytes.lastIndexOf(TEXT_MEMBER);
  if (member === -1 || bytes[bytes.length - 2] !== QUOTE || bytes[bytes.length - 1] !== 0x7d) return null;
  // The string starts at the member's opening quote, one byte before its end.
  return bytes.subarray(member + TEXT_MEMBER.length - 1, bytes.length - 1);
}
