// Whole-record reuse on top of the verdict cache: a record whose every segment verdict is stored
// gets the same entry in every run with the same settings, so a later run takes the stored entry
// instead of planning and serializing the record again. The key covers all the entry depends on
// besides the identity: the record's input line (SHA-256), the policy, the allow file, the entry
// format, this library's version and the record schema (`index` is stored as 0). Only entries
// this library built are stored (`offer`), and none is trusted read back: its text must keep its
// stored SHA-256, parse, reuse exercised verdicts exactly along the policy's plan, and state what
// its segments give (record-state.ts); else a miss. A forgery holding together in every respect
// cannot be caught: whoever can write the cache can store a clean verdict (docs/cache.md).
import { createHash, hash } from "node:crypto";
import { z } from "zod";
import { canonicalJson, canonicalJsonUnchecked } from "../core/canonical.js";
import { isPlainObject } from "../core/guards.js";
import { VERSION } from "../core/version.js";
import type { Allowlist } from "../documents/allowlist.js";
import type { IngestPolicy } from "../documents/policy.js";
import { recordState, statesRecordState, type SegmentOutcome } from "../documents/record-state.js";
import { segmentsFollowPlan } from "../documents/segment-spans.js";
import { ManifestRecordSchema, type ManifestRecord } from "../documents/schemas.js";

/** Version of the stored entry's form and storing rules: bump it for any change of an entry the manifest schema does not show. */
const RECORD_ENTRY_FORMAT = 1;

/** The store under a RecordEntryCache (the SQLite cache under one identity, or a map in tests). */
export interface RecordEntryStore {
  /** The entry stored under the key, or null; null too when its text no longer has the SHA-256 stored with it. */
  get(recordKey: string): { readonly entry: string } | null;
  put(recordKey: string, entry: string, oldestCheckedAt: string): void;
}

/** A record entry taken from the store: the entry at its position, and its canonical JSON. */
export interface ReusedRecordEntry {
  readonly entry: ManifestRecord;
  readonly json: string;
  /** Segments the entry reused (counted as verdict-cache hits). */
  readonly segments: number;
}

/** Whole-record entries by record key, for one run's identity and settings. */
export interface RecordEntryCache {
  /** The stored entry for the record whose input line has this SHA-256, placed at `index`, or null. */
  lookup(lineSha256: string, index: number): ReusedRecordEntry | null;
  /** Stores `entry` (a record's entry built only from reused verdicts) unless it cannot be reused as is. */
  offer(lineSha256: string, entry: ManifestRecord): void;
}

/** The settings the key covers besides the record's fields. */
export interface RecordEntrySettings {
  readonly policy: IngestPolicy;
  readonly allowlist?: Allowlist;
}

let schemaDigest: string | null = null;
/** SHA-256 of the manifest record's JSON Schema: a change of the entry's shape changes every key. */
function recordSchemaDigest(): string {
  schemaDigest ??= createHash("sha256")
    .update(JSON.stringify(z.toJSONSchema(ManifestRecordSchema, { io: "input" })))
    .digest("hex");
  return schemaDigest;
}

/** The position marker of a stored entry: canonical JSON sorts `index` between `id_sha256` and `length`. */
const AT_ZERO = ',"index":0,"length":';

/**
 * The stored text (at position 0) placed at `index`, or null unless the marker occurs exactly once:
 * JSON strings escape every quote, and no object nested before `length` has an `index` key.
 */
function placedAt(stored: string, index: number): string | null {
  const at = stored.indexOf(AT_ZERO);
  if (at < 0 || stored.indexOf(AT_ZERO, at + 1) !== -1) return null;
  return `${stored.slice(0, at)},"index":${index},"length":${stored.slice(at + AT_ZERO.length)}`;
}

/** Whether a parsed stored entry holds together (see the header); its fields are then trusted as the manifest's. */
function holdsTogether(value: unknown, policy: IngestPolicy): value is ManifestRecord {
  if (!isPlainObject(value)) return false;
  const entry = value as Record<string, unknown>;
  if (entry.index !== 0 || entry.admission_basis !== undefined || !Array.isArray(entry.segments) || entry.segments.length === 0) return false;
  const segments = entry.segments as Record<string, unknown>[];
  // The segments must be the policy's windows for the entry's stated lengths and count.
  const { length, chars_total: charsTotal, segments_total: total } = entry;
  if (!segments.every(isPlainObject) || !Number.isSafeInteger(length) || !Number.isSafeInteger(charsTotal) || total !== segments.length) return false;
  if (!segmentsFollowPlan(length as number, charsTotal as number, segments, { chars: policy.segment_chars, overlap: policy.segment_overlap })) return false;
  const outcomes: SegmentOutcome[] = [];
  for (const s of segments) {
    if (s.reused !== true || typeof s.checked_at !== "string") return false;
    if (s.kind !== "metadata" && s.kind !== "text") return false;
    if (typeof s.start !== "number" || typeof s.end !== "number") return false;
    // Only exercised detections and passes are cached; the state stated is what the record's state is derived from.
    if (s.exercised !== true || !isPlainObject(s.verdict) || (s.state !== "pass" && s.state !== "flag" && s.state !== "block")) return false;
    outcomes.push({ kind: s.kind, start: s.start, end: s.end, state: s.state, exercised: true });
  }
  return statesRecordState(entry, recordState(outcomes));
}

/** Whitespace canonical JSON never holds raw (other than a space inside a string). */
const NOT_CANONICAL_WHITESPACE = /[\t\n\r]/;

/** A stored entry read back for position `index` (entry, canonical JSON, segment count), or null unless it holds together. */
export function storedRecordEntry(stored: string, index: number, policy: IngestPolicy): ReusedRecordEntry | null {
  // Canonical JSON escapes every control character inside strings and puts no whitespace
  // between tokens, so a raw tab, line break or carriage return means the text is not one this
  // library stored; its bytes would go into the manifest as they are (and a tab or line break
  // would split the record prefetch's scratch-file line).
  if (NOT_CANONICAL_WHITESPACE.test(stored)) return null;
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    return null;
  }
  if (!holdsTogether(value, policy)) return null;
  const json = placedAt(stored, index);
  if (json === null) return null;
  // A fresh parse, nobody else's object: placed where it is instead of copied.
  (value as { index: number }).index = index;
  return { entry: value, json, segments: value.segments.length };
}

/** The function naming a record's stored entry under `settings`: the record key for the SHA-256 of the record's input line. */
export function recordEntryKeyOf(settings: RecordEntrySettings): (lineSha256: string) => string {
  const settingsSha256 = hash(
    "sha256",
    canonicalJsonUnchecked({
      format: RECORD_ENTRY_FORMAT,
      little_canary_version: VERSION,
      record_schema: recordSchemaDigest(),
      policy: settings.policy,
      allowlist: settings.allowlist?.sha256 ?? null,
    }),
    "hex",
  );
  // Two fixed-length hex digests joined: no two pairs give the same text.
  return (lineSha256) => hash("sha256", `${settingsSha256}${lineSha256}`, "hex");
}

/** A RecordEntryCache over `store`, keyed under `settings`. */
export function recordEntryCache(store: RecordEntryStore, settings: RecordEntrySettings): RecordEntryCache {
  const keyOf = recordEntryKeyOf(settings);
  return {
    lookup(lineSha256, index) {
      const stored = store.get(keyOf(lineSha256));
      return stored === null ? null : storedRecordEntry(stored.entry, index, settings.policy);
    },
    offer(lineSha256, entry) {
      if (entry.admission_basis !== undefined || entry.segments.length === 0) return;
      if (!entry.segments.every((s) => s.reused === true && s.checked_at !== undefined)) return;
      const json = canonicalJson(ManifestRecordSchema, { ...entry, index: 0 }, ["records", 0]);
      // ISO 8601 UTC timestamps of one form sort as text in time order.
      const [oldest] = entry.segments.map((s) => s.checked_at as string).sort();
      store.put(keyOf(lineSha256), json, oldest as string);
    },
  };
}
