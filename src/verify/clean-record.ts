// The short way through one compact (v2/v3) manifest record of the kind that makes up nearly all of
// a large run: admitted, every segment a pass the canary exercised, nothing written that a default
// gives. For such a record the general way (v2 schema, expansion by rules, v1 schema, recomputing
// its state from its segments: verify-stream.ts, manifest-checks.ts) always ends the same: the
// expanded record, no problem, its verdicts re-classifying as recorded. This recognises the shape
// and builds that record directly, checking each field as the schemas would. Anything else (another
// key, another state, a value out of range, a plan that does not fit) returns null and takes the
// general way, which says what is wrong; so a record never gets a different answer here, only a
// faster one. A test holds every record accepted here equal to the general way's result.
import { isSha256Hex, sha256Hex } from "../core/hash.js";
import { passedVerdict } from "../documents/manifest-v2.js";
import { recordState } from "../documents/record-state.js";
import type { ManifestRecord, ManifestSegment } from "../documents/schemas.js";
import { placesOfStated, type Geometry } from "../documents/segment-spans.js";
import { isInt, type Obj, type RecordBounds } from "./_values.js";

/** The record keys of the shape, and those it needs. */
const RECORD_KEYS = new Set(["chars_total", "id", "length", "material_sha256", "metadata_keys", "segments", "sha256", "source"]);
const REQUIRED_RECORD_KEYS = ["chars_total", "length", "material_sha256", "segments", "sha256"];
const SEGMENT_KEYS = new Set(["prompt_eval_count", "sha256", "verdict"]);

const isCount = (value: unknown): value is number => isInt(value) && value >= 0;
const isFiniteNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/** Keys of `value` all among `allowed`; how many of them `required` names, or -1 when one is not allowed. */
function knownKeys(value: Obj, allowed: ReadonlySet<string>, required: readonly string[]): number {
  let found = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (!allowed.has(key)) return -1;
    if (required.includes(key)) found++;
  }
  return found;
}

/**
 * Layer latencies of a compact verdict of latencies alone (`{layers: [{latency}…], total_latency}`,
 * and a `summary` string when the default one would round the latency otherwise), or null.
 */
function passedLatencies(verdict: unknown, structural: boolean | null): number[] | null {
  if (verdict === null || typeof verdict !== "object" || Array.isArray(verdict)) return null;
  const v = verdict as Obj;
  const summarized = Object.hasOwn(v, "summary");
  if (summarized && typeof v["summary"] !== "string") return null;
  if (Object.keys(v).length !== (summarized ? 3 : 2) || !isFiniteNumber(v["total_latency"]) || (v["total_latency"] as number) < 0) return null;
  const layers = v["layers"];
  // One layer (the canary) or two (the structural filter first): with the structural layer on, two.
  if (!Array.isArray(layers) || layers.length < 1 || layers.length > 2) return null;
  if (structural !== null && (layers.length === 2) !== structural) return null;
  const latencies: number[] = [];
  for (const layer of layers) {
    if (layer === null || typeof layer !== "object" || Array.isArray(layer)) return null;
    const keys = Object.keys(layer);
    const latency = (layer as Obj)["latency"];
    if (keys.length !== 1 || keys[0] !== "latency" || !isFiniteNumber(latency)) return null;
    latencies.push(latency);
  }
  return latencies;
}

/**
 * The v1 record of the compact record at `position` when it is a clean admission as ingest writes
 * it (see the file's head), within the manifest's `bounds`; else null (take the general way).
 */
export function cleanRecordExpansion(compact: Obj, position: number, geometry: Geometry, bounds: RecordBounds | null): ManifestRecord | null {
  if (knownKeys(compact, RECORD_KEYS, REQUIRED_RECORD_KEYS) !== REQUIRED_RECORD_KEYS.length) return null;
  const { chars_total: charsTotal, length, material_sha256: material, sha256, segments } = compact;
  if (!isCount(charsTotal) || !isCount(length) || charsTotal < length || !isSha256Hex(material) || !isSha256Hex(sha256)) return null;
  const id = Object.hasOwn(compact, "id") ? compact["id"] : null;
  const source = Object.hasOwn(compact, "source") ? compact["source"] : null;
  const keys = Object.hasOwn(compact, "metadata_keys") ? compact["metadata_keys"] : null;
  // Present labels are strings (a null one is written by leaving it out); present keys a list of strings.
  if ((Object.hasOwn(compact, "id") && typeof id !== "string") || (Object.hasOwn(compact, "source") && typeof source !== "string")) return null;
  if (keys !== null && !(Array.isArray(keys) && keys.every((k) => typeof k === "string"))) return null;
  const keyCount = Array.isArray(keys) ? keys.length : 0;
  if (!Array.isArray(segments) || segments.length === 0) return null;
  if (bounds !== null && (segments.length > bounds.maxSegments || keyCount > bounds.maxMetadataKeys)) return null;
  const places = placesOfStated(length, charsTotal, segments.length, geometry);
  if (places === null) return null;
  const expanded: ManifestSegment[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment: unknown = segments[i];
    if (segment === null || typeof segment !== "object" || Array.isArray(segment)) return null;
    const s = segment as Obj;
    if (knownKeys(s, SEGMENT_KEYS, ["verdict"]) !== 1) return null;
    const place = places[i] as (typeof places)[number];
    // A segment's digest is left out only when it is the record's: one text window over all of it.
    const digest = Object.hasOwn(s, "sha256") ? s["sha256"] : place.kind === "text" && place.start === 0 && place.end === length ? sha256 : null;
    const tokens = Object.hasOwn(s, "prompt_eval_count") ? s["prompt_eval_count"] : null;
    if (!isSha256Hex(digest) || (tokens !== null && !isCount(tokens))) return null;
    const latencies = passedLatencies(s["verdict"], bounds?.structuralFilter ?? null);
    if (latencies === null) return null;
    const verdict = s["verdict"] as Obj;
    const total = verdict["total_latency"] as number;
    expanded.push({
      kind: place.kind,
      index: place.index,
      start: place.start,
      end: place.end,
      sha256: digest,
      verdict: passedVerdict(latencies, total, verdict["summary"] as string | undefined),
      error: null,
      state: "pass",
      exercised: true,
      latency: total,
      prompt_eval_count: tokens,
    });
  }
  const state = recordState(expanded);
  if (state.admission !== "admitted") return null;
  return {
    index: position,
    id: id as string | null,
    source: source as string | null,
    id_sha256: typeof id === "string" ? sha256Hex(id) : null,
    source_sha256: typeof source === "string" ? sha256Hex(source) : null,
    sha256,
    material_sha256: material,
    length,
    metadata_key_count: keyCount,
    metadata_keys: keys as string[] | null,
    detection: state.detection,
    coverage: state.coverage,
    admission: state.admission,
    hold_reasons: [...state.hold_reasons],
    detection_signals: [],
    detail: null,
    segments_total: segments.length,
    segments_checked: state.segments_checked,
    chars_total: charsTotal,
    chars_covered: state.chars_covered,
    segments: expanded,
  };
}
