// The short way through one record of a large run, read from its bytes: a compact (v2/v3) manifest
// record and the export record of the same index, both laid out exactly as ingest writes a clean
// admission (every segment a pass the canary exercised) with labels, metadata keys and values in
// printable ASCII. For such a pair the general way (parse each, prove each canonical by writing it
// again, expand the manifest record into its v1 form, then check the export record against it:
// clean-record.ts, pair-checks.ts) always ends the same: no problem, the record counted as admitted,
// complete and detecting nothing. This reads both records token by token against that one layout,
// recomputes every digest the general way recomputes (the text's, the material's, each segment's,
// hashed from the bytes where they lie) and compares every fact the general way compares; anything
// else (another layout, a byte out of place, a digest or a length that differs) returns null and the
// pair takes the general way, which says what is wrong. So a pair never gets a different answer
// here, only a faster one: the tests hold both ways to the same problems on damaged pairs.
//
// Why reading the layout is as strict as the canonical reader: every token is matched in the one
// form canonical JSON writes it (keys in order and each once, integers without a leading zero,
// numbers as JavaScript writes them, strings without an escape), and a string of printable ASCII
// (U+0020 to U+007E but the quote and the backslash) is its own canonical form. The export text is
// the one string that may be more: strict UTF-8 without a quote, a backslash or a control
// character, which JSON writes as it is.
import { createHash } from "node:crypto";
import { isUtf8 } from "node:buffer";
import { sha256Hex } from "../core/hash.js";
import { utf8CodePointsOutsideControls } from "../core/codepoints.js";
import { placesOfStated, type Geometry } from "../documents/segment-spans.js";
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

  /** A finite number written exactly as JavaScript (so JSON.stringify) writes it. */
  number(): number | null {
    const bytes = this.bytes;
    const first = this.at;
    while (this.at < bytes.length && NUMBER_BYTES[bytes[this.at] as number] === 1) this.at++;
    if (this.at === first) return null;
    const token = bytes.toString("latin1", first, this.at);
    const value = Number(token);
    return Number.isFinite(value) && String(value) === token ? value : null;
  }

  /** A string of printable ASCII without a quote or a backslash, quotes included: the offsets of its content, or null. */
  ascii(): { start: number; end: number } | null {
    const bytes = this.bytes;
    if (bytes[this.at] !== QUOTE) return null;
    const start = this.at + 1;
    let at = start;
    for (; at < bytes.length; at++) {
      const byte = bytes[at] as number;
      if (byte === QUOTE) break;
      if (byte < 0x20 || byte > 0x7e || byte === BACKSLASH) return null;
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

function byteTable(chars: string): Uint8Array {
  const table = new Uint8Array(256);
  for (const char of chars) table[char.charCodeAt(0)] = 1;
  return table;
}

const NUMBER_BYTES = byteTable("-+.0123456789eE");
const HEX_BYTES = byteTable("0123456789abcdef");

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
  const id = c.lit(M_ID) ? c.ascii() : ABSENT;
  if (id === null) return null;
  if (charsTotal === null || !c.lit(M_LENGTH)) return null;
  const length = c.count();
  if (length === null || !c.lit(M_MATERIAL)) return null;
  const material = c.hex();
  if (material < 0 || !c.lit(M_KEYS)) return null;
  const keys: Slice[] = [];
  while (!c.peek(CLOSE_BRACKET)) {
    if (keys.length > 0 && bytes[c.at++] !== COMMA) return null;
    const key = c.ascii();
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
  const source = c.lit(M_SOURCE) ? c.ascii() : ABSENT;
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
  if (c.lit(SUMMARY) && c.ascii() === null) return null;
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

/** A label that is null or a string of printable ASCII: the string's offsets, null for null, undefined when neither. */
function label(c: Cursor): Slice | null | undefined {
  if (c.lit(NULL)) return null;
  return c.ascii() ?? undefined;
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
    const key = c.ascii();
    if (key === null || bytes[c.at++] !== COLON) return null;
    const value = c.ascii();
    if (value === null || metadata.length >= 2 * MAX_FAST_PARTS || same(bytes, key, PROTO, PROTO_SLICE)) return null;
    // Keys in increasing order, each once (bytes of ASCII compare as code units do).
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
  return bytes.toString("latin1", at, at + 64) === digest;
}

/** Both labels absent, or both the same string. */
function sameLabel(m: Buffer, stated: Slice | null, e: Buffer, exported: Slice | null): boolean {
  return stated === null ? exported === null : exported !== null && same(m, stated, e, exported);
}

/** The byte offset of code point `count` in strict UTF-8 `bytes` from `from` (a count within them). */
function codePointOffset(bytes: Buffer, from: number, count: number): number {
  let at = from;
  for (let seen = 0; seen < count; seen++) {
    const lead = bytes[at] as number;
    at += lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
  }
  return at;
}

/** The metadata material (segment-material.ts) of ASCII labels and metadata, as bytes. */
function metadataMaterial(e: Buffer, read: ExportRead): Buffer {
  const lines: Buffer[] = [];
  const line = (name: string, value: Slice): void => {
    lines.push(Buffer.concat([Buffer.from(`${name}: `, "latin1"), e.subarray(value.start, value.end)]));
  };
  if (read.id !== null) line("id", read.id);
  if (read.source !== null) line("source", read.source);
  for (let i = 0; i < read.metadata.length; i += 2) {
    const key = read.metadata[i] as Slice;
    line(e.toString("latin1", key.start, key.end), read.metadata[i + 1] as Slice);
  }
  return Buffer.concat(lines.flatMap((bytes, i) => (i === 0 ? [bytes] : [NEWLINE, bytes])));
}

const NEWLINE = Buffer.from("\n", "latin1");

/**
 * The pair of manifest record `m` (compact) and export record `e` at `index` when both are laid
 * out as ingest writes a clean admission and every fact the general way checks holds (see the
 * file's head), for a manifest of segment `geometry` and record `bounds`; else null.
 */
export function cleanPair(m: Buffer, e: Buffer, index: number, geometry: Geometry, bounds: RecordBounds): CleanPair | null {
  const stated = readManifest(m, bounds);
  const exported = stated === null ? null : readExport(e, index);
  if (stated === null || exported === null) return null;
  const { text } = exported;
  // Strict UTF-8 without a control character, at least one code point, of the stated length.
  const textBytes = e.subarray(text.start, text.end);
  if (!isUtf8(textBytes)) return null;
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
  if (stated.charsTotal !== length + material.length) return null;
  const places = placesOfStated(length, stated.charsTotal, stated.segmentShas.length, geometry);
  if (places === null) return null;
  for (let i = 0; i < places.length; i++) {
    const place = places[i] as (typeof places)[number];
    const at = stated.segmentShas[i] as number;
    const whole = place.kind === "text" && place.start === 0 && place.end === length;
    let digest: string;
    if (place.kind === "metadata") digest = sha256Hex(material.subarray(place.start, place.end));
    else if (whole) digest = textSha;
    else {
      const from = codePointOffset(e, text.start, place.start);
      digest = sha256Hex(e.subarray(from, codePointOffset(e, from, place.end - place.start)));
    }
    if (at < 0 ? !whole : !hexIs(m, at, digest)) return null;
  }
  return { idSha256: exported.id === null ? null : sha256Hex(e.subarray(exported.id.start, exported.id.end)) };
}
