// Checks of a manifest on its own (schema, policy, counts, digests, internal consistency), one
// record at a time as the verifier (verify-stream.ts) walks the list. Every record is recomputed
// from its own segments: each classified segment's verdict must re-classify to the recorded
// state, the record's detection, coverage, hold reasons, admission and counters must follow from
// its segments (record-state.ts), and its spans must be the plan the manifest's policy gives.
// This catches a forged state on held records too, where no export text is available.
import { classifySegmentVerdict } from "../documents/classify.js";
import { recordState, statesRecordState, uncheckedHoldState, type RecordState } from "../documents/record-state.js";
import { allowEntriesFit, heldForDetectionOnly, MAX_ALLOW_ENTRIES } from "../documents/allowlist.js";
import { canonicalJsonUnchecked } from "../core/canonical.js";
import { sha256Hex } from "../core/hash.js";
import { ManifestRecordSchema, type ManifestRecord } from "../documents/schemas.js";
import { describeRange, ManifestShardSchema, shardInconsistency, type ManifestShard } from "../documents/shard.js";
import { segmentsFollowPlan } from "../documents/segment-spans.js";
import { CLASSIFIED_STATES } from "../documents/states.js";
import { expandRecordV2, ManifestRecordV2Schema, RecordV2Error } from "../documents/manifest-v2.js";
import { compileCheck } from "../core/schema-check.js";
import { isInt, isObj, own, type Obj, type RecordBounds } from "./_values.js";
import type { Geometry } from "../documents/segment-spans.js";
import type { ProblemList } from "./problems.js";

/** Step 8 (status) and step 9. */
export function checkRunAndContext(manifest: Obj, problems: ProblemList): void {
  const run = own(manifest, "run");
  if (!isObj(run) || own(run, "status") !== "complete") problems.add("run_incomplete", "manifest run is not complete");
  checkShard(run, problems);
  const pipeline = own(manifest, "pipeline");
  // A run that turned the canary off has no context window to verify, and admits nothing.
  if ((!isObj(pipeline) || own(pipeline, "canary_context_verified") !== true) && !canaryDisabledByChoice(manifest)) {
    problems.add("context_unverified", "manifest does not record a verified canary context window");
  }
  // The recount ties counts.admitted to the records; a run whose canary was off admits none (no
  // segment of it can have been exercised), whatever its records were edited to say.
  const counts = own(manifest, "counts");
  const admitted = isObj(counts) ? own(counts, "admitted") : undefined;
  if (isObj(pipeline) && own(pipeline, "canary_enabled") === false && isInt(admitted) && admitted > 0) {
    problems.add("pipeline_inconsistent", "manifest records the canary disabled but admits records");
  }
  // The recount ties counts.allowlisted to the records; the allow file must be named with them.
  if (isObj(counts) && own(counts, "allowlisted") !== undefined && (!isObj(run) || own(run, "allowlist") === undefined)) {
    problems.add("allowlist_unrecorded", "manifest admits records by an allowlist but does not record the allow file");
  }
}

/**
 * True when the manifest records a run whose canary was disabled by choice (`--no-canary`,
 * `enableCanary: false`: `canary_enabled` and `canary_context_verified` false) and that admitted
 * no record. Its unverified context is then a fact to report, not a problem of the pair. The
 * admitted count is checked against a recount and each record's state against its segments, so
 * a manifest that claims it while admitting a record still fails.
 */
export function canaryDisabledByChoice(manifest: Obj): boolean {
  const pipeline = own(manifest, "pipeline");
  const counts = own(manifest, "counts");
  return (
    isObj(pipeline) &&
    own(pipeline, "canary_enabled") === false &&
    own(pipeline, "canary_context_verified") === false &&
    isObj(counts) &&
    own(counts, "admitted") === 0
  );
}

/** A sharded run's `run.shard`, when it matches its schema (a mismatch is the schema check's to report). */
function shardOf(run: unknown): ManifestShard | null {
  if (!isObj(run) || own(run, "shard") === undefined) return null;
  const parsed = ManifestShardSchema.safeParse(own(run, "shard"));
  return parsed.success ? parsed.data : null;
}

/** A recorded shard must be the range its k, n and input line count define, of a hashed input. */
function checkShard(run: unknown, problems: ProblemList): void {
  const shard = shardOf(run);
  if (shard === null) return;
  const why = shardInconsistency(shard);
  if (why !== null) problems.add("shard_invalid", `manifest run.shard: ${why}`);
  if (typeof own(run as Obj, "input_sha256") !== "string") problems.add("shard_invalid", "manifest run.shard: a sharded run must record the input's sha256");
}

// Each record is checked against its schema by a compiled predicate first (zod parses only a record it refuses).
const RECORD_V1_CHECK = compileCheck(ManifestRecordSchema);
const RECORD_V2_CHECK = compileCheck(ManifestRecordV2Schema);

/** What the per-record check of one manifest record found, beyond the problems it added. */
export interface ManifestRecordCheck {
  /** The record, when export records can be matched to it (an object whose index is its position). */
  readonly usable: Obj | null;
  /** Path inside the record of its first schema issue, or null when it matches its schema. */
  readonly issuePath: readonly PropertyKey[] | null;
  /**
   * True when the record matches its schema and its recorded state follows from its segments:
   * every classified segment's verdict then re-classified to its recorded state and exercised
   * flag, so the export check need not classify them again.
   */
  readonly verdictsAgree: boolean;
}

/** The path of a parse's first issue, or null when it succeeded. */
function firstIssuePath(parsed: {
  readonly success: boolean;
  readonly error?: { readonly issues: ReadonlyArray<{ readonly path: readonly PropertyKey[] }> };
}): readonly PropertyKey[] | null {
  return parsed.success ? null : (parsed.error?.issues[0]?.path ?? []);
}

/**
 * Step 10 for the manifest record at `position`: its shape and index, then whether its state and
 * plan follow from its segments. `issueWanted` false: the caller has the record's issue path
 * already (a compact record that did not expand), so a record without an integer index, which
 * its schema always refuses, is not parsed again only to list its issues (zod lists every one:
 * most of the time a manifest of malformed records took).
 */
export function checkManifestRecordAt(
  record: unknown,
  position: number,
  geometry: Geometry | null,
  problems: ProblemList,
  bounds: RecordBounds | null = null,
  issueWanted = true,
): ManifestRecordCheck {
  const index = isObj(record) ? own(record, "index") : undefined;
  if (!isObj(record) || !isInt(index)) {
    problems.add("manifest_record_malformed", `manifest record at position ${position}: malformed`);
    return { usable: null, issuePath: issueWanted ? firstIssuePath(RECORD_V1_CHECK.safeParse(record)) : null, verdictsAgree: false };
  }
  const parsed = RECORD_V1_CHECK.safeParse(record);
  const issuePath = firstIssuePath(parsed);
  // Positions are unique, so an index equal to its position is never a duplicate.
  if (index !== position) {
    problems.add("manifest_record_index", `manifest record at position ${position}: duplicate or out-of-order index`);
    return { usable: null, issuePath, verdictsAgree: false };
  }
  // Shape problems are reported once, by the schema check; only well-shaped records are recomputed.
  const verdictsAgree = parsed.success && checkRecordConsistency(parsed.data, index, geometry, problems, bounds);
  return { usable: record, issuePath, verdictsAgree };
}

/**
 * A v2 record (no `index`) as the v1 record of its facts, for the checks of a v1 record; or, when
 * it does not match the v2 record schema or cannot be expanded, the record as it is (the v1
 * checks then find it malformed) with the path of its first problem.
 */
export function expandedRecord(record: Obj, position: number, geometry: Geometry | null): { record: unknown; issuePath: readonly PropertyKey[] | null } {
  const parsed = RECORD_V2_CHECK.safeParse(record);
  if (!parsed.success) return { record, issuePath: parsed.error.issues[0]?.path ?? [] };
  if (geometry === null) return { record, issuePath: ["segments"] };
  try {
    return { record: expandRecordV2(parsed.data, position, geometry), issuePath: null };
  } catch (error) {
    if (!(error instanceof RecordV2Error)) throw error;
    return { record, issuePath: error.path };
  }
}

/** Step 11: the run's record total against the number of records. */
export function checkRecordsTotal(manifest: Obj, recordCount: number, problems: ProblemList): void {
  const run = own(manifest, "run");
  if (!isObj(run) || own(run, "records_total") !== recordCount) problems.add("records_total", "manifest records_total does not match the record list");
  // Each record is one non-blank line of the shard's range.
  const shard = shardOf(run);
  if (shard !== null && recordCount > shard.lines) {
    problems.add("shard_invalid", `manifest run.shard: ${recordCount} records cannot come from ${describeRange(shard)}`);
  }
}

/**
 * The allowlist entries a manifest's records cite, told apart by all four fields, kept up to one
 * more than an allow file may hold (MAX_ALLOW_ENTRIES): enough to know that a recorded allow
 * file of fewer entries cannot have admitted them. Each is kept as the SHA-256 of its fields, so
 * a hostile manifest's long fields take no more memory than an entry of the allow file's own.
 */
export class CitedAllowEntries {
  readonly #keys = new Set<string>();

  /** Takes in the entries a record cites (`allowlist_entries`, when it has a list of them). */
  add(record: unknown): void {
    const entries = isObj(record) ? own(record, "allowlist_entries") : undefined;
    if (!Array.isArray(entries)) return;
    for (const entry of entries) {
      if (!isObj(entry)) continue;
      // JSON.stringify writes any string well-formed (a lone surrogate as an escape), so it hashes.
      this.#take(sha256Hex(JSON.stringify([own(entry, "sha256"), own(entry, "scope"), own(entry, "reason"), own(entry, "by")])));
    }
  }

  /** Another share's entries (`keys`), as if its records had been added here. */
  absorb(keys: readonly string[]): void {
    for (const key of keys) this.#take(key);
  }

  /** The entries as kept, for another share's `absorb`. */
  keys(): string[] {
    return [...this.#keys];
  }

  /** Distinct entries cited, at most MAX_ALLOW_ENTRIES + 1. */
  get size(): number {
    return this.#keys.size;
  }

  #take(key: string): void {
    if (this.#keys.size <= MAX_ALLOW_ENTRIES) this.#keys.add(key);
  }
}

/**
 * The allow file the run records (`run.allowlist.entries`) must hold every distinct entry the
 * records cite: a manifest that says it read fewer cannot have admitted records by them.
 */
export function checkCitedEntries(manifest: Obj, cited: CitedAllowEntries, problems: ProblemList): void {
  const run = own(manifest, "run");
  const allowlist = isObj(run) ? own(run, "allowlist") : undefined;
  const entries = isObj(allowlist) ? own(allowlist, "entries") : undefined;
  if (!isInt(entries) || cited.size <= entries) return;
  const count = cited.size > MAX_ALLOW_ENTRIES ? `more than ${MAX_ALLOW_ENTRIES}` : String(cited.size);
  problems.add("allowlist_unrecorded", `manifest records cite ${count} distinct allowlist entries, but the allow file it records has ${entries}`);
}

/** Step 17: the manifest's counts against a recount of its records (undefined: none possible). */
export function checkRecount(manifest: Obj, recount: unknown, problems: ProblemList): void {
  let same = false;
  try {
    same = recount !== undefined && canonicalJsonUnchecked(own(manifest, "counts")) === canonicalJsonUnchecked(recount);
  } catch {
    same = false;
  }
  if (!same) problems.add("counts_mismatch", "manifest counts do not match its records");
}

/** A layer passed exactly when its status is `passed`, failed to pass when `blocked`, and neither (null) when it was skipped or failed to run: as every pipeline verdict writes it. */
function layerPassedFollowsStatus(layer: { readonly status: string; readonly passed: boolean | null }): boolean {
  return layer.passed === (layer.status === "passed" ? true : layer.status === "blocked" ? false : null);
}

/** The layers every pipeline verdict has: the structural filter (unless it is off), then the canary probe, each once (one that did not run says so in its status). */
function layersInOrder(layers: ReadonlyArray<{ readonly name: string }>): boolean {
  const names = layers.map((layer) => layer.name).join(",");
  return names === "structural_filter,canary_probe" || names === "canary_probe";
}

function segmentsAgreeWithVerdicts(record: ManifestRecord): boolean {
  return record.segments.every((s) => {
    // A verdict reused from the cache names when it was checked, and only a cacheable one is
    // ever reused: an exercised pass, flag or block.
    if ((s.reused === true) !== (s.checked_at !== undefined)) return false;
    if (s.reused === true && !(s.exercised && (s.state === "pass" || s.state === "flag" || s.state === "block"))) return false;
    if (CLASSIFIED_STATES.has(s.state)) {
      // A classified segment has a verdict and no error; each layer's `passed` says its status.
      if (s.verdict === null || s.error !== null || !layersInOrder(s.verdict.layers) || !s.verdict.layers.every(layerPassedFollowsStatus)) return false;
      // The record schema held the verdict to the verdict schema already.
      const c = classifySegmentVerdict(s.verdict, true);
      return !("error" in c) && c.state === s.state && c.exercised === s.exercised;
    }
    if (s.state === "error") return s.verdict === null && !s.exercised && s.error !== null;
    return s.verdict === null && !s.exercised && s.error === null; // not_checked
  });
}

/**
 * The state a record must record: the one its segments give, or, for an allow-listed
 * admission, that state admitted with no hold reason. Null when the allowlist fields cannot be
 * right: they come together, only on a record its segments hold for detections alone, with
 * entries that name its material hash or exactly its detecting segments' hashes.
 */
function allowlistedState(record: ManifestRecord, expected: RecordState): RecordState | null {
  const basis = record.admission_basis === "allowlist";
  if (basis !== (record.allowlist_entries !== undefined)) return null;
  if (!basis) return expected;
  if (record.segments.length === 0 || !heldForDetectionOnly(expected.hold_reasons)) return null;
  if (!allowEntriesFit(record, record.allowlist_entries ?? [])) return null;
  return { ...expected, hold_reasons: [], admission: "admitted" };
}

/**
 * A malformed record (held before its fields could be trusted) records no digest, no material and
 * no plan: empty digests, no characters, no segments, no metadata keys (its `length` counts its
 * text when it had one). Every other record, over budget or checked, records its two digests.
 */
function digestsFitHold(record: ManifestRecord): boolean {
  if (record.segments.length === 0 && record.hold_reasons[0] === "malformed") {
    return record.sha256 === "" && record.material_sha256 === "" && record.chars_total === 0 && record.segments_total === 0 && record.metadata_key_count === 0;
  }
  return record.sha256 !== "" && record.material_sha256 !== "";
}

function stateMatches(record: ManifestRecord): boolean {
  const expected =
    record.segments.length === 0
      ? record.hold_reasons.length === 1 && (record.hold_reasons[0] === "malformed" || record.hold_reasons[0] === "over_budget")
        ? uncheckedHoldState(record.hold_reasons[0])
        : null
      : recordState(record.segments);
  if (expected === null) return false;
  const want = allowlistedState(record, expected);
  if (want === null) return false;
  // `detail` says why a record was held unchecked (malformed, over budget); a checked one has none.
  if ((record.segments.length === 0) !== (record.detail !== null)) return false;
  if (!digestsFitHold(record)) return false;
  return (
    statesRecordState(record, want) && (record.segments.length === 0 || record.segments_total === record.segments.length) && segmentsAgreeWithVerdicts(record)
  );
}

/**
 * A checked record is within its head's bounds: one past the policy's limits (more segments, more
 * metadata keys) is held unchecked by ingest (over budget, malformed), with no segments at all;
 * and every verdict carries the structural layer exactly when the pipeline says it was on (when
 * it says either).
 */
function withinBounds(record: ManifestRecord, bounds: RecordBounds | null): boolean {
  if (bounds === null || record.segments.length === 0) return true;
  if (record.segments_total > bounds.maxSegments || record.metadata_key_count > bounds.maxMetadataKeys) return false;
  // With the structural layer on, every verdict carries it; with it off, none does.
  const structural = bounds.structuralFilter;
  return structural === null || record.segments.every((s) => s.verdict === null || s.verdict.layers.some((l) => l.name === "structural_filter") === structural);
}

/** Steps 10.1–10.2; true when the recorded state matched (its verdicts re-classified as recorded). */
function checkRecordConsistency(record: ManifestRecord, index: number, geometry: Geometry | null, problems: ProblemList, bounds: RecordBounds | null): boolean {
  const matches = stateMatches(record) && withinBounds(record, bounds);
  if (!matches) problems.add("record_state_mismatch", `record ${index}: recorded state does not match its segments`);
  // A held record's labels are recorded as digests only: no export record vouches for plaintext
  // ones, which could then say anything (even contradict the digest beside them).
  if (record.admission === "held" && (record.id !== null || record.source !== null || record.metadata_keys !== null)) {
    problems.add("held_record_labels", `record ${index}: a held record must not carry its id, source or metadata keys in plaintext`);
  }
  if (geometry !== null && record.segments.length > 0 && !segmentsFollowPlan(record.length, record.chars_total, record.segments, geometry)) {
    problems.add("segment_plan_mismatch", `record ${index}: segments do not match the policy's plan`);
  }
  return matches;
}
