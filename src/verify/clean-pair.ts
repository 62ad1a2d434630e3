// The short way through one record of a large run, read from its bytes: a compact (v2/v3) manifest
// record and the export record of the same index, both laid out exactly as ingest writes a clean
// admission (every segment a pass the canary exercised, every string written without an escape).
// For such a pair the general way (parse each, prove each canonical by writing it again, expand
// the manifest record into its v1 form, then check the export record against it: clean-record.ts,
// pair-checks.ts) always ends the same: no problem, the record counted as admitted, complete and
// detecting nothing. This reads both records token by token against that one layout, recomputes
// every digest the general way recomputes (the text's, the material's, each segment's, hashed from
// the bytes where they lie) and compares every fact the general way compares; anything else
// (another layout, a byte out of place, an escape, a digest or a length that differs) returns null
// and the pair takes the general way, which says what is wrong. So a pair never gets a different
// answer here, only a faster one (test/verify/clean-pair.test.ts holds it to that).
//
// Why reading the layout is as strict as the canonical reader: every token is matched in the one
// form canonical JSON writes it (keys in order and each once, integers without a leading zero,
// numbers as JavaScript writes them), and a string of strict UTF-8 without a control character, a
// quote or a backslash is its own canonical form (JSON.stringify writes every other character as it
// is). Metadata keys are held to the Basic Multilingual Plane, where the order of UTF-8 bytes is the
// order of code units that canonical JSON sorts keys by and the order of code points that the
// metadata material and `metadata_keys` follow. Integer-like keys (`"10"`, `"2"`), which the
// canonical reader leaves to the strict one (JSON.parse puts them first), are read here in that
// same canonical order; every check of them sorts the keys itself, so the answer is the same.
import { createHash } from "node:crypto";
import { isUtf8 } from "node:buffer";
import { sha256Hex } from "../core/hash.js";
import { utf8CodePointOffset, utf8CodePoints, utf8CodePointsOutsideControls } from "../core/codepoints.js";
import { byteTable } from "../core/canonical-value.js";
import { placesOfStated, type Geometry, type Span } from "../documents/segment-spans.js";
import type { RecordBounds } from "./_values.js";

/** What a clean pair contributes beyond "no problem": the id's digest for the repeated-id count. */
export interface CleanPair {
  /** SHA-256 of the record's id, or null when it has none. */
  readonly idSha256: string | null;
}

/**
 * Most segments and metadata keys of a record read here: far more than a policy of ordinary
 * windows gives a record, and few enough that a record read here holds fewer values than any
 * budget of the general way. A record with more takes the general way.
 */
const MAX_FAST_PARTS = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A read position in one record's bytes; each method matches one token and moves past it, or returns null/false. */
class Cursor {
  at = 0;

  constructor(readonly bytes: Buffer) {}

  /** Matches `text` (ASCII) at the position. */
  lit(text: Buffer): boolean {
    const bytes = this.bytes;
    const end = this.at + text.length;
    if (end > bytes.length) return false;
    for (let i = 0; i < text.length; i++) if (bytes[this.at + i] !== text[i]) return false;
    this.at = end;
    return true;
  }

  /** Whether the next byte is `byte` (not consumed). */
  peek(byte: number): boolean {
    return this.bytes[this.at] === byte;
  }

  /** A whole number as canonical JSON writes one: digits, no leading zero, exact in a double. */
  count(): number | null {
    const bytes = this.bytes;
    const first = this.at;
    let value = 0;
    while (this.at < bytes.length) {
      const byte = bytes[this.at] as number;
      if (byte < 0x30 || byte > 0x39) break;
      value = value * 10 + (byte - 0x30);
      this.at++;
    }
    const digits = this.at - first;
    if (digits === 0 || digits > 15 || (digits > 1 && bytes[first] === 0x30)) return null;
    return value;
  }

  /**
   * A finite number written exactly as JavaScript (so JSON.stringify) writes it: its sign (-1, 0
   * or 1), or null. The common form (a latency: `0.0616`, `1.8419`) is judged from its digits: a
   * decimal of at most 15 significant digits with no trailing zero, from 1e-6 up (below, JavaScript
   * writes an exponent), is the shortest form of the one double it stands for, since no two such
   * decimals share a double. Any other form is converted and written again to compare.
   */
  number(): number | null {
    const bytes = this.bytes;
    const first = this.at;
    while (this.at < bytes.length && NUMBER_BYTES[bytes[this.at] as number] === 1) this.at++;
    if (this.at === first) return null;
    const plain = plainDecimalSign(bytes, first, this.at);
    if (plain !== null) return plain;
    const token = bytes.toString("latin1", first, this.at);
    const value = Number(token);
    return Number.isFinite(value) && String(value) === token ? Math.sign(value) : null;
  }

  /**
   * A string written with no escape, quotes included: no control character, backslash or (in a
   * key, `key`) byte from F0 up, a character outside the Basic Multilingual Plane. The offsets of
   * its content, or null. Whether its bytes are strict UTF-8 is the caller's check, over the record.
   */
  string(key = false): { start: number; end: number } | null {
    const bytes = this.bytes;
    if (bytes[this.at] !== QUOTE) return null;
    const start = this.at + 1;
    const highest = key ? 0xef : 0xff;
    let at = start;
    for (; at < bytes.length; at++) {
      const byte = bytes[at] as number;
      if (byte === QUOTE) break;
      if (byte < 0x20 || byte > highest || byte === BACKSLASH) return null;
    }
    if (at >= bytes.length) return null;
    this.at = at + 1;
    return { start, end: at };
  }

  /** A lowercase hex SHA-256 in quotes: the offset of its digits, or -1. */
  hex(): number {
    const bytes = this.bytes;
    const start = this.at + 1;
    if (bytes[this.at] !== QUOTE || bytes[start + 64] !== QUOTE) return -1;
    for (let i = start; i < start + 64; i++) if (HEX_BYTES[bytes[i] as number] !== 1) return -1;
    this.at = start + 65;
    return start;
  }
}

const isDigit = (byte: number | undefined): boolean => byte !== undefined && byte >= 0x30 && byte <= 0x39;

/**
 * The sign of the number `bytes[from, to)` when it is a decimal JavaScript writes so exactly
 * (Cursor.number): an optional minus, `0` or digits without a leading zero, then optionally a point
 * and digits ending in a non-zero one, at most 15 significant digits, and with a zero whole part at
 * most five zeros after the point (1e-6 is written `0.000001`, 1e-7 `1e-7`); else null (not
 * judged here). `-0` is not judged here either: JavaScript writes it `0`.
 */
export function plainDecimalSign(bytes: Buffer, from: number, to: number): number | null {
  let at = from;
  const negative = bytes[at] === 0x2d;
  if (negative) at++;
  const whole = at;
  if (bytes[at] === 0x30) at++;
  else while (at < to && isDigit(bytes[at])) at++;
  const wholeDigits = at - whole;
  if (wholeDigits === 0) return null;
  const zeroWhole = bytes[whole] === 0x30;
  if (at === to) return zeroWhole ? (negative ? null : 0) : wholeDigits <= 15 ? (negative ? -1 : 1) : null;
  if (bytes[at] !== 0x2e) return null;
  const fraction = ++at;
  while (at < to && isDigit(bytes[at])) at++;
  if (at !== to || at === fraction || bytes[at - 1] === 0x30) return null;
  let significant = at - fraction;
  if (zeroWhole) {
    let zeros = 0;
    while (bytes[fraction + zeros] === 0x30) zeros++;
    if (zeros > 5) return null;
    significant -= zeros;
  } else {
    significant += wholeDigits;
  }
  return significant <= 15 ? (negative ? -1 : 1) : null;
}

const codes = (chars: string): number[] => [...chars].map((char) => char.charCodeAt(0));
const NUMBER_BYTES = byteTable(codes("-+.0123456789eE"));
const HEX_BYTES = byteTable(codes("0123456789abcdef"));

const ascii = (text: string): Buffer => Buffer.from(text, "latin1");
const M_OPEN = ascii('{"chars_total":');
const M_ID = ascii(',"id":');
const M_LENGTH = ascii(',"length":');
const M_MATERIAL = ascii(',"material_sha256":');
const M_KEYS = ascii(',"metadata_keys":[');
const M_SEGMENTS = ascii('],"segments":[');
const M_SHA = ascii('],"sha256":');
const M_SOURCE = ascii(',"source":');
const S_TOKENS = ascii('{"prompt_eval_count":');
const S_SHA_FIRST = ascii('{"sha256":');
const S_SHA = ascii(',"sha256":');
const S_VERDICT_FIRST = ascii('{"verdict":{"layers":[');
const S_VERDICT = ascii(',"verdict":{"layers":[');
const LAYER = ascii('{"latency":');
const LAYER_NEXT = ascii('},{"latency":');
const LAYERS_END = ascii("}]");
const SUMMARY = ascii(',"summary":');
const TOTAL = ascii(',"total_latency":');
const SEGMENT_END = ascii("}}");
const E_OPEN = ascii('{"id":');
const E_INDEX = ascii(',"index":');
const E_MATERIAL = ascii(',"material_sha256":');
const E_METADATA = ascii(',"metadata":{');
const E_SHA = ascii('},"sha256":');
const E_SOURCE = ascii(',"source":');
const E_TEXT = ascii(',"text":"');
const NULL = ascii("null");
/** A metadata key that is an own property only as JSON.parse builds it: left to the general way. */
const PROTO = ascii("__proto__");
const PROTO_SLICE: Slice = { start: 0, end: PROTO.length };
const COLON = 0x3a;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/** Offsets of a string's content in one record's bytes. */
interface Slice {
  readonly start: number;
  readonly end: number;
}

/** A label a compact record leaves out (it is null): told apart from a string that failed to read (null). */
const ABSENT: Slice = { start: -1, end: -1 };

/** The manifest record as read: its facts and where its strings and digests lie. */
interface ManifestRead {
  readonly charsTotal: number;
  readonly length: number;
  readonly id: Slice | null;
  readonly source: Slice | null;
  readonly material: number;
  readonly sha: number;
  readonly keys: Slice[];
  /** Each segment's stated digest (its offset), or -1 when it is left out. */
  readonly segmentShas: number[];
}

/**
 * Reads a compact manifest record laid out as ingest writes a clean admission, with what
 * clean-record.ts asks of one (a verdict of latencies alone, one layer per enabled layer, a total
 * latency not below zero), or null.
 */
function readManifest(bytes: Buffer, bounds: RecordBounds): ManifestRead | null {
  const c = new Cursor(bytes);
  if (!c.lit(M_OPEN)) return null;
  const charsTotal = c.count();
  const id = c.lit(M_ID) ? c.string() : ABSENT;
  if (id === null) return null;
  if (charsTotal === null || !c.lit(M_LENGTH)) return null;
  const length = c.count();
  if (length === null || !c.lit(M_MATERIAL)) return null;
  const material = c.hex();
  if (material < 0 || !c.lit(M_KEYS)) return null;
  const keys: Slice[] = [];
  while (!c.peek(CLOSE_BRACKET)) {
    if (keys.length > 0 && bytes[c.at++] !== COMMA) return null;
    const key = c.string(true);
    if (key === null || keys.length >= MAX_FAST_PARTS) return null;
    keys.push(key);
  }
  if (!c.lit(M_SEGMENTS)) return null;
  const segmentShas: number[] = [];
  while (!c.peek(CLOSE_BRACKET)) {
    if (segmentShas.length > 0 && bytes[c.at++] !== COMMA) return null;
    if (segmentShas.length >= MAX_FAST_PARTS) return null;
    const sha = readSegment(c, bounds.structuralFilter);
    if (sha === null) return null;
    segmentShas.push(sha);
  }
  if (!c.lit(M_SHA)) return null;
  const sha = c.hex();
  if (sha < 0) return null;
  const source = c.lit(M_SOURCE) ? c.string() : ABSENT;
  if (source === null) return null;
  if (c.at !== bytes.length - 1 || bytes[c.at] !== CLOSE_BRACE) return null;
  if (segmentShas.length === 0 || segmentShas.length > bounds.maxSegments || keys.length > bounds.maxMetadataKeys) return null;
  return { charsTotal, length, id: id === ABSENT ? null : id, source: source === ABSENT ? null : source, material, sha, keys, segmentShas };
}

/** One segment of a clean admission: its stated digest's offset, -1 when left out, null when it is not such a segment. */
function readSegment(c: Cursor, structural: boolean | null): number | null {
  let sha = -1;
  let opened = false;
  if (c.lit(S_TOKENS)) {
    if (c.count() === null) return null;
    opened = true;
  }
  if (c.lit(opened ? S_SHA : S_SHA_FIRST)) {
    sha = c.hex();
    if (sha < 0) return null;
    opened = true;
  }
  if (!c.lit(opened ? S_VERDICT : S_VERDICT_FIRST) || !c.lit(LAYER) || c.number() === null) return null;
  let layers = 1;
  if (c.lit(LAYER_NEXT)) {
    if (c.number() === null) return null;
    layers = 2;
  }
  // One layer (the canary) or two (the structural filter first); with the filter on, two.
  if (!c.lit(LAYERS_END) || (structural !== null && (layers === 2) !== structural)) return null;
  if (c.lit(SUMMARY) && c.string() === null) return null;
  if (!c.lit(TOTAL)) return null;
  const total = c.number();
  if (total === null || total < 0 || !c.lit(SEGMENT_END)) return null;
  return sha;
}

/** The export record as read: where its labels, metadata, digests and text lie. */
interface ExportRead {
  readonly id: Slice | null;
  readonly source: Slice | null;
  readonly material: number;
  readonly sha: number;
  /** Keys and values, alternately. */
  readonly metadata: Slice[];
  /** The bytes of `{"id":…`, `,"metadata":{…}` and `,"source":…,"text":"…"}`: the material's canonical JSON in three parts. */
  readonly materialParts: readonly [Slice, Slice, Slice];
  readonly text: Slice;
}

/** A label that is null or a string written with no escape: the string's offsets, null for null, undefined when neither. */
function label(c: Cursor): Slice | null | undefined {
  if (c.lit(NULL)) return null;
  return c.string() ?? undefined;
}

/** Reads an export record laid out as ingest writes it (`index` the one expected), or null. */
function readExport(bytes: Buffer, index: number): ExportRead | null {
  const c = new Cursor(bytes);
  if (!c.lit(E_OPEN)) return null;
  const id = label(c);
  const idEnd = c.at;
  if (id === undefined || !c.lit(E_INDEX) || c.count() !== index || !c.lit(E_MATERIAL)) return null;
  const material = c.hex();
  if (material < 0) return null;
  const metadataStart = c.at;
  if (!c.lit(E_METADATA)) return null;
  const metadata: Slice[] = [];
  while (!c.peek(CLOSE_BRACE)) {
    if (metadata.length > 0 && bytes[c.at++] !== COMMA) return null;
    const key = c.string(true);
    if (key === null || bytes[c.at++] !== COLON) return null;
    const value = c.string();
    if (value === null || metadata.length >= 2 * MAX_FAST_PARTS || same(bytes, key, PROTO, PROTO_SLICE)) return null;
    // Keys in increasing order, each once (UTF-8 bytes of the Basic Multilingual Plane compare as its code units do).
    const previous = metadata[metadata.length - 2];
    if (previous !== undefined && bytes.compare(bytes, previous.start, previous.end, key.start, key.end) <= 0) return null;
    metadata.push(key, value);
  }
  const metadataEnd = c.at + 1;
  if (!c.lit(E_SHA)) return null;
  const sha = c.hex();
  const sourceStart = c.at;
  if (sha < 0 || !c.lit(E_SOURCE)) return null;
  const source = label(c);
  if (source === undefined || !c.lit(E_TEXT)) return null;
  // The text runs to the quote before the closing brace, with no other quote and no backslash.
  const start = c.at;
  const end = bytes.length - 2;
  if (end <= start || bytes[end] !== QUOTE || bytes[end + 1] !== CLOSE_BRACE) return null;
  if (bytes.indexOf(QUOTE, start) !== end || bytes.indexOf(BACKSLASH, start) !== -1) return null;
  return {
    id,
    source,
    material,
    sha,
    metadata,
    materialParts: [
      { start: 0, end: idEnd },
      { start: metadataStart, end: metadataEnd },
      { start: sourceStart, end: bytes.length },
    ],
    text: { start, end },
  };
}

/** Whether two slices hold the same bytes. */
function same(a: Buffer, x: Slice, b: Buffer, y: Slice): boolean {
  return x.end - x.start === y.end - y.start && a.compare(b, y.start, y.end, x.start, x.end) === 0;
}

/** Whether the 64 hex digits at `at` in `bytes` are `digest`. */
function hexIs(bytes: Buffer, at: number, digest: string): boolean {
  for (let i = 0; i < 64; i++) if (bytes[at + i] !== digest.charCodeAt(i)) return false;
  return true;
}

/** Both labels absent, or both the same string. */
function sameLabel(m: Buffer, stated: Slice | null, e: Buffer, exported: Slice | null): boolean {
  return stated === null ? exported === null : exported !== null && same(m, stated, e, exported);
}

/**
 * SHA-256 of each window `windows` (code points, in plan order) of the strict UTF-8 material
 * `bytes[start, end)` of `length` code points. Where every code point is one byte the windows'
 * bytes are their offsets; else every boundary is found in one pass over the bytes.
 */
function windowDigests(bytes: Buffer, start: number, end: number, length: number, windows: readonly Span[]): string[] {
  if (end - start === length) return windows.map((w) => sha256Hex(bytes.subarray(start + w.start, start + w.end)));
  const boundaries = [...new Set(windows.flatMap((w) => [w.start, w.end]))].sort((a, b) => a - b);
  const offsets = new Map<number, number>();
  let at = start;
  let seen = 0;
  for (const boundary of boundaries) {
    at = utf8CodePointOffset(bytes, at, boundary - seen);
    seen = boundary;
    offsets.set(boundary, at);
  }
  return windows.map((w) => sha256Hex(bytes.subarray(offsets.get(w.start) as number, offsets.get(w.end) as number)));
}

/**
 * The metadata material (segment-material.ts) of the labels and metadata as read, as its UTF-8
 * bytes: lines `id: …`, `source: …` and `key: value`, joined by a line feed, copied from `e` into
 * one buffer.
 */
function metadataMaterial(e: Buffer, read: ExportRead): Buffer {
  const lines: Array<readonly [Buffer | Slice, Slice]> = [];
  if (read.id !== null) lines.push([ID_NAME, read.id]);
  if (read.source !== null) lines.push([SOURCE_NAME, read.source]);
  for (let i = 0; i < read.metadata.length; i += 2) lines.push([read.metadata[i] as Slice, read.metadata[i + 1] as Slice]);
  const size = (part: Buffer | Slice): number => (Buffer.isBuffer(part) ? part.length : part.end - part.start);
  let bytes = Math.max(0, lines.length - 1);
  for (const [name, value] of lines) bytes += size(name) + SEPARATOR.length + size(value);
  const material = Buffer.allocUnsafe(bytes);
  let at = 0;
  const put = (part: Buffer | Slice): void => {
    at += Buffer.isBuffer(part) ? part.copy(material, at) : e.copy(material, at, part.start, part.end);
  };
  lines.forEach(([name, value], i) => {
    if (i > 0) material[at++] = LINE_FEED;
    put(name);
    put(SEPARATOR);
    put(value);
  });
  return material;
}

const ID_NAME = Buffer.from("id", "latin1");
const SOURCE_NAME = Buffer.from("source", "latin1");
const SEPARATOR = Buffer.from(": ", "latin1");
const LINE_FEED = 0x0a;

/**
 * The pair of manifest record `m` (compact) and export record `e` at `index` when both are laid
 * out as ingest writes a clean admission and every fact the general way checks holds (see the
 * file's head), for a manifest of segment `geometry` and record `bounds`; else null.
 */
export function cleanPair(m: Buffer, e: Buffer, index: number, geometry: Geometry, bounds: RecordBounds): CleanPair | null {
  const stated = readManifest(m, bounds);
  const exported = stated === null ? null : readExport(e, index);
  if (stated === null || exported === null) return null;
  // Both records strict UTF-8 (their strings were read as bytes); the text without a control
  // character, at least one code point, of the stated length.
  if (!isUtf8(m) || !isUtf8(e)) return null;
  const { text } = exported;
  const textBytes = e.subarray(text.start, text.end);
  const length = utf8CodePointsOutsideControls(e, text.start, text.end);
  if (length === null || length < 1 || length !== stated.length || stated.charsTotal < length) return null;
  // Labels, and metadata keys as stated (the keys of the export's map, in its order: sorted).
  if (!sameLabel(m, stated.id, e, exported.id) || !sameLabel(m, stated.source, e, exported.source)) return null;
  if (stated.keys.length * 2 !== exported.metadata.length) return null;
  for (let i = 0; i < stated.keys.length; i++) if (!same(m, stated.keys[i] as Slice, e, exported.metadata[2 * i] as Slice)) return null;
  // The text's digest and the material's, as both records state them.
  const textSha = sha256Hex(textBytes);
  if (!hexIs(e, exported.sha, textSha) || !hexIs(m, stated.sha, textSha)) return null;
  const hash = createHash("sha256");
  for (const part of exported.materialParts) hash.update(e.subarray(part.start, part.end));
  const materialSha = hash.digest("hex");
  if (!hexIs(e, exported.material, materialSha) || !hexIs(m, stated.material, materialSha)) return null;
  // The segments: the plan of this material, each window's digest as stated (or, left out, the
  // record's, which only a text window over all of it may be).
  const material = metadataMaterial(e, exported);
  const materialLength = utf8CodePoints(material);
  if (stated.charsTotal !== length + materialLength) return null;
  const places = placesOfStated(length, stated.charsTotal, stated.segmentShas.length, geometry);
  if (places === null) return null;
  // Metadata windows come first in the plan, then text windows; a text of one window is the text.
  const metadataWindows = places.filter((place) => place.kind === "metadata");
  const textWindows = places.slice(metadataWindows.length);
  const single = textWindows.length === 1;
  const digests = [
    ...windowDigests(material, 0, material.length, materialLength, metadataWindows),
    ...(single ? [textSha] : windowDigests(e, text.start, text.end, length, textWindows)),
  ];
  for (let i = 0; i < places.length; i++) {
    const at = stated.segmentShas[i] as number;
    // A digest left out stands for the record's: only a text window over all of it may leave it out.
    const whole = single && i === places.length - 1;
    if (at < 0 ? !whole : !hexIs(m, at, digests[i] as string)) return null;
  }
  return { idSha256: exported.id === null ? null : sha256Hex(e.subarray(exported.id.start, exported.id.end)) };
}
