// `little-canary-ingest-manifest/v2`: the v1 manifest with nothing written that another field
// already determines. The v1 record stays the one model of a record's facts: a v2 record is a
// v1 record with every field left out whose value equals its default, and a field's default is
// computed only from fields before it in a fixed order (a segment's place from the plan, a
// record's state from its segments, a verdict's summary from its statuses, ...). So
// `expandRecordV2(compactRecordV1(r))` is `r` for every record ingest writes, and a reader of v2
// (verify, the RAG loaders) derives the v1 facts and reasons about them exactly as for v1.
// A held record keeps its evidence: only values its other fields determine are left out.
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { sha256Hex } from "../core/hash.js";
import { UsageError } from "../core/errors.js";
import { recordState, type RecordState } from "./record-state.js";
import { placesOfStated, segmentCount, segmentsFollowPlan, type Geometry } from "./segment-spans.js";
import type { HoldReason } from "./states.js";
import { VerdictJsonSchema, type VerdictJson } from "./verdict-schema.js";
import {
  EXPORT_SCHEMA,
  IngestExportSchema,
  IngestManifestSchema,
  MANIFEST_SCHEMA,
  ManifestRecordSchema,
  PipelineInfoV3Schema,
  type IngestManifest,
  type ManifestRecord,
  type ManifestSegment,
} from "./schemas.js";

/** The schema name of the compact ingest manifest. */
export const MANIFEST_SCHEMA_V2 = "little-canary-ingest-manifest/v2";
/** The schema name of the export bound to a v2 manifest (its records are those of v1). */
export const EXPORT_SCHEMA_V2 = "little-canary-ingest-export/v2";

/** The schema name of the v2 manifest whose pipeline also records the structural rules' version. */
export const MANIFEST_SCHEMA_V3 = "little-canary-ingest-manifest/v3";
/** The schema name of the export bound to a v3 manifest (its records are those of v1). */
export const EXPORT_SCHEMA_V3 = "little-canary-ingest-export/v3";

/** Which manifest format a run writes: 3 by default, 2 and 1 for consumers pinned to them. */
export type ManifestVersion = 1 | 2 | 3;

/** The manifest version an `ingest` writes when none is asked for. */
const DEFAULT_MANIFEST_VERSION: ManifestVersion = 3;

/** A run's `manifestVersion` option, checked (UsageError unless 1, 2 or 3; absent: the default). */
export function manifestVersionOf(value: unknown): ManifestVersion {
  if (value === undefined) return DEFAULT_MANIFEST_VERSION;
  if (value === 1 || value === 2 || value === 3) return value;
  throw new UsageError("manifestVersion must be 1, 2 or 3");
}

/** The manifest and export schema names of each version, oldest first. */
const SCHEMA_NAMES: Readonly<Record<ManifestVersion, { readonly manifest: string; readonly export: string }>> = {
  1: { manifest: MANIFEST_SCHEMA, export: EXPORT_SCHEMA },
  2: { manifest: MANIFEST_SCHEMA_V2, export: EXPORT_SCHEMA_V2 },
  3: { manifest: MANIFEST_SCHEMA_V3, export: EXPORT_SCHEMA_V3 },
};

/** The manifest and export schema names a run of `version` writes. */
export function schemaNamesOf(version: ManifestVersion): { readonly manifest: string; readonly export: string } {
  return SCHEMA_NAMES[version];
}

/** The version a manifest schema name belongs to, or null for a name no version has. */
export function manifestVersionNamed(name: unknown): ManifestVersion | null {
  const found = Object.entries(SCHEMA_NAMES).find(([, names]) => names.manifest === name);
  return found === undefined ? null : (Number(found[0]) as ManifestVersion);
}

// A layer's latency is always written: a measured latency can round to 0, and a default of 0
// would make the bytes depend on timing beyond the latency values themselves.
const LayerV2Schema = VerdictJsonSchema.shape.layers.element.partial({ name: true, passed: true, status: true, details: true });

const VerdictV2Schema = VerdictJsonSchema.extend({ layers: z.array(LayerV2Schema) }).partial({
  safe: true,
  blocked_by: true,
  summary: true,
  canary_risk_score: true,
  degraded: true,
  canary_status: true,
  analysis_method: true,
  analysis_status: true,
  advisory: true,
});

/** A segment without its place (the plan gives kind, index, start and end from its position). */
const SegmentV2Schema = ManifestRecordSchema.shape.segments.element
  .omit({ kind: true, index: true, start: true, end: true })
  .extend({ verdict: VerdictV2Schema.nullable() })
  .partial({ sha256: true, state: true, exercised: true, verdict: true, error: true, latency: true, prompt_eval_count: true });

/** A v2 record: no `index` (its position gives it), defaults left out. */
export const ManifestRecordV2Schema = ManifestRecordSchema.omit({ index: true })
  .extend({ segments: z.array(SegmentV2Schema) })
  .partial({
    id: true,
    source: true,
    id_sha256: true,
    source_sha256: true,
    metadata_key_count: true,
    metadata_keys: true,
    detection: true,
    coverage: true,
    admission: true,
    hold_reasons: true,
    detection_signals: true,
    detail: true,
    segments_total: true,
    segments_checked: true,
    chars_covered: true,
  });

/** zod schema of the v2 manifest: the v1 head (same run, counts, policy and pipeline) and v2 records. */
export const IngestManifestV2Schema = IngestManifestSchema.extend({
  schema: z.literal(MANIFEST_SCHEMA_V2),
  records: z.array(ManifestRecordV2Schema),
});

/** zod schema of the export bound to a v2 manifest. */
export const IngestExportV2Schema = IngestExportSchema.extend({
  schema: z.literal(EXPORT_SCHEMA_V2),
  manifest_schema: z.literal(MANIFEST_SCHEMA_V2),
});

/**
 * zod schema of the v3 manifest: v2 with the version of the built-in structural rules in its
 * pipeline, null exactly when the structural layer was off (no rules ran).
 */
export const IngestManifestV3Schema = IngestManifestV2Schema.extend({
  schema: z.literal(MANIFEST_SCHEMA_V3),
  pipeline: PipelineInfoV3Schema,
});

/** zod schema of the export bound to a v3 manifest. */
export const IngestExportV3Schema = IngestExportSchema.extend({
  schema: z.literal(EXPORT_SCHEMA_V3),
  manifest_schema: z.literal(MANIFEST_SCHEMA_V3),
});

/** One record of a v2 manifest. */
export type ManifestRecordV2 = z.infer<typeof ManifestRecordV2Schema>;
/** The compact ingest manifest. */
export type IngestManifestV2 = z.infer<typeof IngestManifestV2Schema>;
/** The compact ingest manifest that records the structural rules' version. */
type IngestManifestV3 = z.infer<typeof IngestManifestV3Schema>;

type Loose = Record<string, unknown>;
/** What a rule may read beyond the object it fills: the record, the segment's place, the verdict, the layer's position. */
interface RuleContext {
  readonly geometry?: Geometry;
  /** The record's state, once a rule has worked it out (stateOf). */
  state?: RecordState;
  readonly record?: Loose;
  readonly place?: Pick<ManifestSegment, "kind" | "start" | "end">;
  readonly verdict?: Loose;
  readonly position?: number;
  readonly count?: number;
}
/** A field's default from the fields before it (already final), or undefined when it has none. */
type Rule = readonly [key: string, fallback: (v: Loose, c: RuleContext) => unknown];

/** Every key a list of rules may fill, each undefined: the start of an object those rules expand. */
type Slots = Readonly<Loose>;

function slotsOf(rules: readonly Rule[]): Slots {
  return Object.freeze(Object.fromEntries(rules.map(([key]) => [key, undefined])));
}

/**
 * The object a compact one expands into, starting with every key its rules may fill (undefined
 * until filled; a JSON value is never undefined). Filling then only overwrites properties: adding
 * them one by one under varying keys made expansion the largest cost of verifying a v2 manifest.
 * The slots are copied from one object per rule list, not rebuilt per object (a third of the
 * expansion's time went to rebuilding them).
 */
function expansionOf(slots: Slots, compact: object, first?: object): Loose {
  return Object.assign(Object.assign({}, slots), first, compact);
}

/** The advisory of a verdict that raised none: a new object each time, since the record owns it. */
function noAdvisory(): Loose {
  return { flagged: false, severity: "none", signals: [], message: "" };
}

function exercisedVerdict(v: Loose): boolean {
  return v["canary_status"] === "exercised" && v["analysis_status"] === "exercised";
}

/** The summary the pipeline writes for a verdict with these fields (pipeline/base.ts `#finish`). */
function defaultSummary(v: Loose): string | undefined {
  const latency = v["total_latency"];
  if (typeof latency !== "number") return undefined;
  const t = latency.toFixed(3);
  const blockedBy = v["blocked_by"];
  const degraded = v["degraded"] === true;
  const layers = Array.isArray(v["layers"]) ? (v["layers"] as Loose[]) : [];
  const structural = layers.find((l) => l["name"] === "structural_filter");
  const canary = layers.find((l) => l["name"] === "canary_probe");
  if (blockedBy === "structural_filter" && structural?.["status"] === "blocked" && canary?.["status"] === "skipped" && !degraded) {
    return `Blocked by structural filter: ${String(structural["details"])}`;
  }
  if (blockedBy === "fail_closed") {
    return degraded
      ? `Input denied by fail-closed policy because behavioral coverage failed; not inspected (${t}s)`
      : `Input denied by fail-closed policy because behavioral canary screening did not run (${t}s)`;
  }
  if (degraded && blockedBy === null) return `Input allowed by fail-open policy because behavioral coverage failed; not inspected-safe (${t}s)`;
  if (degraded) return `Input blocked by ${String(blockedBy)}; behavioral coverage also failed (${t}s)`;
  if (blockedBy !== null) return `Input blocked by ${String(blockedBy)} (${t}s)`;
  if ((v["advisory"] as Loose | undefined)?.["flagged"] === true) return `Input allowed with security advisory (${t}s)`;
  if (exercisedVerdict(v)) return passedSummary(t);
  return `Input allowed without behavioral canary screening (${t}s)`;
}

/** The summary of a verdict every layer of which passed, with the canary exercised (`t`: its latency to 3 places). */
function passedSummary(t: string): string {
  return `Input passed all enabled security layers; behavioral probe exercised (${t}s)`;
}

/** A layer's details when they only say it passed (the structural filter's, the exercised canary's at risk 0). */
const PASSED_DETAILS = { structural_filter: "Clean", canary_probe: "No behavioral anomalies detected." } as const;

/** The details a layer with this name and status states (pipeline/base.ts), when they only restate it. */
function defaultDetails(layer: Loose, verdict: Loose): string | undefined {
  const status = layer["status"];
  if (layer["name"] === "structural_filter") {
    if (status === "passed") return PASSED_DETAILS.structural_filter;
    const matches = layer["matches"];
    if (status === "blocked" && Array.isArray(matches)) return [...new Set(matches.map((m) => (m as Loose)["reason"]))].join("; ");
    return undefined;
  }
  if (status === "passed" && verdict["canary_risk_score"] === 0) return PASSED_DETAILS.canary_probe;
  if (status === "skipped" && verdict["canary_status"] === "skipped_after_block") return "Skipped after structural filter block.";
  if (status === "skipped" && verdict["canary_status"] === "disabled") return "Canary disabled by configuration.";
  return undefined;
}

const LAYER_RULES: Rule[] = [
  ["name", (_, c) => (c.position === (c.count as number) - 1 ? "canary_probe" : "structural_filter")],
  ["status", () => "passed"],
  ["passed", (l) => (l["status"] === "passed" ? true : l["status"] === "blocked" ? false : null)],
  ["details", (l, c) => defaultDetails(l, c.verdict as Loose)],
];
const LAYER_SLOTS = slotsOf(LAYER_RULES);

// `layers` is expanded between the statuses and the summary (defaultDetails reads the statuses).
const VERDICT_RULES_BEFORE_LAYERS: Rule[] = [
  ["canary_status", () => "exercised"],
  ["analysis_status", (v) => (v["canary_status"] === "exercised" ? "exercised" : "not_applicable")],
  ["analysis_method", (v) => (v["canary_status"] === "exercised" || v["canary_status"] === "failed" ? "regex" : "none")],
  ["blocked_by", () => null],
  ["safe", (v) => v["blocked_by"] === null],
  ["degraded", () => false],
  ["canary_risk_score", (v) => (exercisedVerdict(v) ? 0 : null)],
  ["advisory", noAdvisory],
];
const VERDICT_RULES_AFTER_LAYERS: Rule[] = [["summary", defaultSummary]];
const VERDICT_RULES: Rule[] = [...VERDICT_RULES_BEFORE_LAYERS, ...VERDICT_RULES_AFTER_LAYERS];
const VERDICT_SLOTS = slotsOf(VERDICT_RULES);

const SEGMENT_RULES: Rule[] = [
  ["sha256", (_, { place, record }) => (place?.kind === "text" && place.start === 0 && place.end === record?.["length"] ? record?.["sha256"] : undefined)],
  ["verdict", () => null],
  ["error", () => null],
  ["state", (s) => (s["error"] !== null ? "error" : s["verdict"] === null ? "not_checked" : "pass")],
  [
    "exercised",
    (s) => {
      const v = s["verdict"] as Loose | null;
      const classified = s["state"] === "pass" || s["state"] === "flag" || s["state"] === "block";
      return classified && v !== null && exercisedVerdict(v) && v["degraded"] === false && v["canary_risk_score"] !== null && v["blocked_by"] !== "fail_closed";
    },
  ],
  ["latency", (s) => (s["verdict"] as Loose | null)?.["total_latency"] ?? null],
  ["prompt_eval_count", () => null],
];
const SEGMENT_SLOTS = slotsOf(SEGMENT_RULES);

function labelDigest(label: unknown): string | null {
  return typeof label === "string" ? sha256Hex(label) : null;
}

function segmentsTotal(r: Loose, geometry: Geometry): number {
  const segments = r["segments"] as unknown[];
  if (segments.length > 0) return segments.length;
  const length = r["length"] as number;
  const charsTotal = r["chars_total"] as number;
  if (charsTotal === 0) return 0;
  try {
    return segmentCount(charsTotal - length, geometry.chars, geometry.overlap) + segmentCount(length, geometry.chars, geometry.overlap);
  } catch {
    return 0;
  }
}

/** The record's state from its (expanded) segments, with an allow-listed admission's; worked out once per record (`c.state`). */
function stateOf(r: Loose, c: RuleContext): RecordState {
  if (c.state !== undefined) return c.state;
  const screened = recordState(r["segments"] as ManifestSegment[]);
  c.state = r["admission_basis"] === "allowlist" ? { ...screened, hold_reasons: [], admission: "admitted" as const } : screened;
  return c.state;
}

// `segments` are expanded before these: the state fields follow from them.
const RECORD_RULES: Rule[] = [
  ["id", () => null],
  ["source", () => null],
  ["id_sha256", (r) => labelDigest(r["id"])],
  ["source_sha256", (r) => labelDigest(r["source"])],
  ["metadata_keys", () => null],
  ["metadata_key_count", (r) => (Array.isArray(r["metadata_keys"]) ? r["metadata_keys"].length : 0)],
  ["hold_reasons", (r, c) => [...stateOf(r, c).hold_reasons]],
  ["admission", (r) => ((r["hold_reasons"] as HoldReason[]).length === 0 ? "admitted" : "held")],
  ["detection", (r, c) => stateOf(r, c).detection],
  ["coverage", (r, c) => stateOf(r, c).coverage],
  ["segments_checked", (r, c) => stateOf(r, c).segments_checked],
  ["chars_covered", (r, c) => stateOf(r, c).chars_covered],
  ["detection_signals", () => []],
  ["detail", () => null],
  ["segments_total", (r, c) => segmentsTotal(r, c.geometry as Geometry)],
];
const RECORD_SLOTS = slotsOf(RECORD_RULES);

/** Why a v2 record has no v1 form: the path of the first field it cannot derive. */
export class RecordV2Error extends UsageError {
  constructor(readonly path: ReadonlyArray<string | number>) {
    super(`v2 manifest record cannot be expanded (at ${path.join(".") || "(record)"})`);
  }
}

function fill(value: Loose, rules: readonly Rule[], context: RuleContext, path: ReadonlyArray<string | number>): Loose {
  for (const [key, fallback] of rules) {
    if (value[key] !== undefined) continue;
    const derived = fallback(value, context);
    if (derived === undefined) throw new RecordV2Error([...path, key]);
    // Every fallback that derives an object or array makes a new one, so nothing is shared between records.
    value[key] = derived;
  }
  return value;
}

function elide(full: Loose, rules: readonly Rule[], context: RuleContext): Loose {
  const out: Loose = { ...full };
  for (const [key, fallback] of rules) {
    const derived = fallback(full, context);
    if (derived !== undefined && isDeepStrictEqual(full[key], derived)) delete out[key];
  }
  return out;
}

function expandVerdict(compact: Loose, path: ReadonlyArray<string | number>): VerdictJson {
  const v = fill(expansionOf(VERDICT_SLOTS, compact), VERDICT_RULES_BEFORE_LAYERS, {}, path);
  const layers = Array.isArray(v["layers"]) ? (v["layers"] as Loose[]) : [];
  v["layers"] = layers.map((layer, i) =>
    fill(expansionOf(LAYER_SLOTS, layer), LAYER_RULES, { position: i, count: layers.length, verdict: v }, [...path, "layers", i]),
  );
  return fill(v, VERDICT_RULES_AFTER_LAYERS, {}, path) as unknown as VerdictJson;
}

/**
 * What expandVerdict gives for a compact verdict of latencies alone (`{layers: [{latency}…],
 * total_latency}`, one or two layers, every latency finite, and a `summary` when it is not the
 * default): the verdict of a text every enabled
 * layer passed, the canary exercised at risk 0. Built directly, for verify's clean records
 * (verify/clean-record.ts); a test holds it equal to expandVerdict.
 */
export function passedVerdict(layerLatencies: readonly number[], totalLatency: number, summary?: string): VerdictJson {
  const count = layerLatencies.length;
  const layers = layerLatencies.map((latency, i) => {
    const name: keyof typeof PASSED_DETAILS = i === count - 1 ? "canary_probe" : "structural_filter";
    return { name, status: "passed" as const, passed: true, details: PASSED_DETAILS[name], latency };
  });
  return {
    canary_status: "exercised",
    analysis_status: "exercised",
    analysis_method: "regex",
    blocked_by: null,
    safe: true,
    degraded: false,
    canary_risk_score: 0,
    advisory: { flagged: false, severity: "none", signals: [], message: "" },
    layers,
    total_latency: totalLatency,
    summary: summary ?? passedSummary(totalLatency.toFixed(3)),
  };
}

function compactVerdict(full: VerdictJson): Loose {
  const v = full as unknown as Loose;
  const layers = full.layers.map((layer, i) => elide(layer as unknown as Loose, LAYER_RULES, { position: i, count: full.layers.length, verdict: v }));
  return { ...elide(v, VERDICT_RULES, {}), layers };
}

/**
 * The v1 record (every fact) of the v2 record at `position` of a manifest whose policy has this
 * geometry. Throws RecordV2Error when a field it leaves out has no default (a hand-made record;
 * ingest never writes one) or its segments cannot be the plan's. The input must match
 * ManifestRecordV2Schema; the result is checked against nothing (the caller validates it).
 */
export function expandRecordV2(compact: ManifestRecordV2, position: number, geometry: Geometry): ManifestRecord {
  const r = expansionOf(RECORD_SLOTS, compact, { index: position });
  const length = compact.length;
  const stated = compact.segments.length;
  // A record of no segments (held unchecked) has no places; any other must have the plan's count.
  const places = stated === 0 ? [] : placesOfStated(length, compact.chars_total, stated, geometry);
  if (places === null) throw new RecordV2Error(["segments"]);
  r["segments"] = compact.segments.map((segment, i) => {
    const place = places[i] as (typeof places)[number];
    const s = expansionOf(SEGMENT_SLOTS, segment, place);
    if (segment.verdict !== undefined && segment.verdict !== null) s["verdict"] = expandVerdict(segment.verdict as Loose, ["segments", i, "verdict"]);
    return fill(s, SEGMENT_RULES, { place, record: r }, ["segments", i]);
  });
  return fill(r, RECORD_RULES, { geometry }, []) as unknown as ManifestRecord;
}

/**
 * The v2 form of a v1 record: every field its default determines left out. Throws UsageError
 * when the record's segments are not the plan of its length and `chars_total` under `geometry`
 * (v2 does not write places), which no record ingest makes can be.
 */
export function compactRecordV1(full: ManifestRecord, geometry: Geometry): ManifestRecordV2 {
  const r = full as unknown as Loose;
  if (full.segments.length > 0 && !segmentsFollowPlan(full.length, full.chars_total, full.segments, geometry))
    throw new UsageError(`manifest record ${full.index}: its segments are not the policy's plan`);
  const segments = full.segments.map((segment) => {
    const { kind: _k, index: _i, start: _s, end: _e, ...rest } = elide(segment as unknown as Loose, SEGMENT_RULES, { place: segment, record: r });
    const verdict = rest["verdict"];
    return verdict === undefined || verdict === null ? rest : { ...rest, verdict: compactVerdict(verdict as VerdictJson) };
  });
  const { index: _index, ...rest } = elide(r, RECORD_RULES, { geometry });
  return { ...rest, segments } as unknown as ManifestRecordV2;
}

/** A manifest of any version, as parsed from its bytes. */
export type ManifestDocument = IngestManifest | IngestManifestV2 | IngestManifestV3;
/** A manifest of any version without its records (the heads differ in `schema` and, from v3, the pipeline). */
export type ManifestHead = Omit<ManifestDocument, "records">;

/** The schema names of every manifest version this major line writes, oldest first. */
export const MANIFEST_SCHEMAS: readonly string[] = Object.values(SCHEMA_NAMES).map((names) => names.manifest);

/** The export schema bound to each manifest schema. */
export function exportSchemaFor(manifestSchema: unknown): string | null {
  const version = manifestVersionNamed(manifestSchema);
  return version === null ? null : SCHEMA_NAMES[version].export;
}

/** True when `name` is the export schema name of some manifest version. */
export function isExportSchemaName(name: unknown): name is string {
  return Object.values(SCHEMA_NAMES).some((names) => names.export === name);
}

/** The zod schema of a manifest that names `name` as its schema (v1's for a name no version has). */
export function manifestDocumentSchema(name: unknown): typeof IngestManifestSchema | typeof IngestManifestV2Schema | typeof IngestManifestV3Schema {
  return name === MANIFEST_SCHEMA_V2 ? IngestManifestV2Schema : name === MANIFEST_SCHEMA_V3 ? IngestManifestV3Schema : IngestManifestSchema;
}

/** The zod schema of an export that names `name` as its schema (v1's for a name no version has). */
export function exportDocumentSchema(name: unknown): typeof IngestExportSchema | typeof IngestExportV2Schema | typeof IngestExportV3Schema {
  return name === EXPORT_SCHEMA_V2 ? IngestExportV2Schema : name === EXPORT_SCHEMA_V3 ? IngestExportV3Schema : IngestExportSchema;
}

/** The v1 records (every fact) of a valid manifest of any version (v2 and v3 records are the same). */
export function manifestFacts(doc: ManifestDocument): ManifestRecord[] {
  if (doc.schema === MANIFEST_SCHEMA) return doc.records;
  const geometry = { chars: doc.policy.segment_chars, overlap: doc.policy.segment_overlap };
  return doc.records.map((record, position) => expandRecordV2(record, position, geometry));
}
