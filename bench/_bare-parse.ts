// The yardstick `verify` is measured against (issue 28): how fast this machine does nothing but
// `JSON.parse` and SHA-256 over the same bytes. The file is read in chunks; the SHA-256 of every
// chunk is timed, and so is the UTF-8 decoding and `JSON.parse` of every record entry and of the
// rest of the document (split by _json-elements.ts, whose own time is left out), so memory holds
// one record at any size. Only the timed work counts: the figure is the parser's and the hash's
// speed, not the benchmark's.
//
// Beside it, the floor of a canonical check by re-serialization: the strict-UTF-8 check of each
// entry and the comparison of `JSON.stringify` of its parsed value with its text, timed apart
// (`canonicalCheckSeconds`). A verifier that proves canonical form that way pays at least the
// parse, that check and the hash, before any check of its own (docs/scale.md).
import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { JsonElementSplitter } from "./_json-elements.js";

const CHUNK_BYTES = 1024 * 1024;

/** What one bare pass over a file measured. */
export interface BarePass {
  readonly bytes: number;
  /** Seconds spent decoding and in `JSON.parse`. */
  readonly parseSeconds: number;
  /** Seconds spent in SHA-256. */
  readonly sha256Seconds: number;
  /** Seconds spent checking each entry is strict UTF-8 and re-serializes to its own text. */
  readonly canonicalCheckSeconds: number;
  readonly sha256: string;
  /** Entries (and the document's rest) that did not re-serialize to their own text. */
  readonly canonicalMisses: number;
  /** Record entries (elements of top-level arrays) parsed one by one. */
  readonly elements: number;
}

/**
 * Parses every record entry of the JSON document at `path` and hashes its bytes; `onElement`
 * sees each parsed entry with its ordinal and byte length (outside the timed work).
 */
export async function bareParseFile(path: string, onElement?: (value: unknown, ordinal: number, bytes: number) => void): Promise<BarePass> {
  const splitter = new JsonElementSplitter();
  const hash = createHash("sha256");
  let bytes = 0;
  let parseMs = 0;
  let hashMs = 0;
  let checkMs = 0;
  let elements = 0;
  let canonicalMisses = 0;
  const parse = (piece: Buffer): unknown => {
    const started = performance.now();
    const text = piece.toString("utf8");
    const value: unknown = JSON.parse(text);
    const parsed = performance.now();
    // Entries are canonical (a record as ingest writes it), so the comparison runs to the end.
    if (!isUtf8(piece) || JSON.stringify(value) !== text) canonicalMisses++;
    parseMs += parsed - started;
    checkMs += performance.now() - parsed;
    return value;
  };
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES })) {
    const buffer = chunk as Buffer;
    bytes += buffer.length;
    const started = performance.now();
    hash.update(buffer);
    hashMs += performance.now() - started;
    for (const element of splitter.push(buffer)) {
      const value = parse(element);
      onElement?.(value, elements, element.length);
      elements++;
    }
  }
  parse(splitter.end());
  return {
    bytes,
    parseSeconds: parseMs / 1000,
    sha256Seconds: hashMs / 1000,
    canonicalCheckSeconds: checkMs / 1000,
    canonicalMisses,
    sha256: hash.digest("hex"),
    elements,
  };
}

/** MB/s of parse and hash together over `passes` (the bytes once, the two costs added). */
export function bareMbPerSecond(passes: readonly BarePass[]): number {
  let bytes = 0;
  let seconds = 0;
  for (const pass of passes) {
    bytes += pass.bytes;
    seconds += pass.parseSeconds + pass.sha256Seconds;
  }
  return bytes / 1e6 / seconds;
}

/** MB/s of parse, canonical check and hash together over `passes`: the floor of a canonical verifier on one thread. */
export function canonicalFloorMbPerSecond(passes: readonly BarePass[]): number {
  let bytes = 0;
  let seconds = 0;
  for (const pass of passes) {
    bytes += pass.bytes;
    seconds += pass.parseSeconds + pass.canonicalCheckSeconds + pass.sha256Seconds;
  }
  return bytes / 1e6 / seconds;
}
