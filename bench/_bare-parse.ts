// The yardstick `verify` is measured against (issue 28): how fast this machine does nothing but
// `JSON.parse` and SHA-256 over the same bytes. The file is read in chunks; the SHA-256 of every
// chunk is timed, and so is the UTF-8 decoding and `JSON.parse` of every record entry and of the
// rest of the document (split by _json-elements.ts, whose own time is left out), so memory holds
// one record at any size. Only the timed work counts: the figure is the parser's and the hash's
// speed, not the benchmark's.
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
  readonly sha256: string;
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
  let elements = 0;
  const parse = (piece: Buffer): unknown => {
    const started = performance.now();
    const value: unknown = JSON.parse(piece.toString("utf8"));
    parseMs += performance.now() - started;
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
  return { bytes, parseSeconds: parseMs / 1000, sha256Seconds: hashMs / 1000, sha256: hash.digest("hex"), elements };
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
