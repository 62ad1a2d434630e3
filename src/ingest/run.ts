// The ingest run: gate the pipeline, admit records one by one under strict/v1,
// and build the manifest (and, when asked, the export) in memory. Nothing is written here;
// publication is a separate step (src/publish), so a run that fails leaves no file behind.
//
// Order never depends on timing: records are checked up to `concurrency` at a time, but each
// record's segments run in plan order (stop_after_hold needs that) and results are placed by
// index, so the manifest is the same for any concurrency apart from timestamps and latencies.
// One exception is deliberate: when the canary backend dies or hangs, the circuit breaker
// opens after so many consecutive failures in completion order, and which records were still
// unsent at that moment depends on timing. Such a run is held (exit 2) whatever the order.
//
// Stopping after a hold saves canary calls only: the structural layer costs microseconds, so
// every segment of every planned record still goes through it, and a record's detection is
// "none" only when every segment was inspected.
import { DEFAULT_READER_LIMITS, type ReaderLimits } from "../documents/reader-limits.js";
import { admitInMemoryInputs } from "../jsonl/admit.js";
import type { RawRecord } from "../jsonl/record.js";
import {
  buildExport,
  buildManifestFromEntries,
  canonicalRecordEntry,
  formatTimestamp,
  type AdmittedSnapshot,
  type CanonicalDocument,
  type CanonicalRecordEntry,
} from "../documents/manifest-build.js";
import {
  NOT_CHECKED,
  checkedRecordEntry,
  duplicateIdRecordEntry,
  malformedRecordEntry,
  overBudgetRecordEntry,
  type SegmentResult,
} from "../documents/manifest-records.js";
import type { IngestExport, IngestManifest, ManifestRecord, PipelineInfo } from "../documents/schemas.js";
import { isGenuineVerdict, PipelineVerdict } from "../pipeline/verdict.js";
import { mapOrdered } from "../schedule/map-ordered.js";
import {
  CanaryCircuitBreaker,
  CIRCUIT_OPEN_ERROR,
  DEFAULT_MAX_CANARY_FAILURES,
  canaryProfile,
  observeCanary,
  type BreakerTrip,
  type CanaryObservation,
  type CanaryProfile,
} from "../schedule/circuit-breaker.js";
import type { VerdictJson } from "../documents/verdict-schema.js";
import { planSegments, type SegmentableRecord, type SegmentPlan } from "../documents/segment-plan.js";
import { LittleCanaryError } from "../core/errors.js";
import { VERSION } from "../core/version.js";
import { classifySegmentVerdict, isClassifyError } from "../documents/classify.js";
import { isGenuinePipeline, runContextGate, type CheckingPipeline, type GateResult } from "./gate.js";
import { resolvePolicy, type IngestPolicy, type PolicyOverrides } from "../documents/policy.js";
import { stopsChecking } from "../documents/record-state.js";

/** One in-memory input of `ingestRecords`: a string, or an object whose fields are checked like a JSONL record's. */
export type IngestInput =
  | string
  | {
      readonly text: unknown;
      readonly id?: unknown;
      readonly source?: unknown;
      readonly metadata?: unknown;
    };

/** Options of `ingestRecords`. */
export interface IngestOptions {
  /** strict/v1 with these overrides (a whole policy document is accepted too). */
  readonly policy?: PolicyOverrides | IngestPolicy;
  /** Let a pipeline this library did not build run; recorded as canary_context_verified:false. */
  readonly unverifiedPipeline?: boolean;
  readonly concurrency?: number;
  /** Produce the export document too (sets run.export_requested, covered by the hash). */
  readonly exportRequested?: boolean;
  /** SHA-256 of the raw input, when the caller read it from bytes (the CLI does). */
  readonly inputSha256?: string | null;
  readonly signal?: AbortSignal;
  /** Records done so far (a record is done when all its checks are). */
  readonly onProgress?: (done: number, total: number) => void;
  /** The clock for the manifest's timestamps (defaults to the system clock). */
  readonly clock?: () => Date;
  /**
   * Consecutive unreachable/timeout canary failures after which no more canary calls are sent
   * (default 5; 0 never stops). The rest of the run's segments are then `error`
   * (`canary_circuit_open`) unless the structural layer blocks them.
   */
  readonly maxCanaryFailures?: number;
  /** Hold a record whose id repeats an earlier record's id (as `malformed`), instead of only counting it. */
  readonly uniqueIds?: boolean;
}

/** The result of an ingest run in memory: the manifest and, when asked, the export, not yet written. */
export interface IngestRun {
  readonly manifest: CanonicalDocument<IngestManifest>;
  readonly export: CanonicalDocument<IngestExport> | null;
  readonly gate: GateResult;
  /** Set when the circuit breaker opened: canary calls stopped part-way through the run. */
  readonly circuitOpen: BreakerTrip | null;
  /** Records whose id repeats an earlier record's (by index), with the index of the first. */
  readonly duplicateIds: readonly DuplicateId[];
}

/** A record whose id equals an earlier record's id. */
export interface DuplicateId {
  readonly index: number;
  readonly firstIndex: number;
}

/**
 * Records (by index) whose string id was already used by an earlier record, in input order.
 * Only valid records count; a malformed record's id is not a label.
 */
export function findDuplicateIds(records: readonly RawRecord[]): DuplicateId[] {
  const first = new Map<string, number>();
  const duplicates: DuplicateId[] = [];
  for (const record of records) {
    if (typeof record.id !== "string" || record.problems.some((p) => p.severity === "malformed")) continue;
    const seen = first.get(record.id);
    if (seen === undefined) first.set(record.id, record.index);
    else duplicates.push({ index: record.index, firstIndex: seen });
  }
  return duplicates;
}

/** Reader limits implied by a policy (so the reader and the policy can never disagree). */
export function readerLimitsForPolicy(policy: IngestPolicy): ReaderLimits {
  return {
    ...DEFAULT_READER_LIMITS,
    maxItems: policy.max_items,
    maxItemBytes: policy.max_item_bytes,
    maxTotalBytes: policy.max_total_bytes,
    maxMetadataKeys: policy.max_metadata_keys,
    maxMetadataValueChars: policy.max_metadata_value_chars,
  };
}

/** In-memory records through the reader's record rules, with the run-level count/size limits. */
export function admitIngestInputs(inputs: readonly IngestInput[], policy: IngestPolicy): RawRecord[] {
  const limits = readerLimitsForPolicy(policy);
  return admitInMemoryInputs(inputs, {
    kind: "ingest",
    limits,
    refuse: (code, index) =>
      new LittleCanaryError(
        "input_refused",
        code === "too_many_items"
          ? `ingest exceeds the limit of ${limits.maxItems} records`
          : code === "not_a_record"
            ? `record ${index}: must be a string or object`
            : `ingest exceeds the limit of ${limits.maxTotalBytes} total bytes`,
      ),
  });
}

function snapshotOf(record: RawRecord): SegmentableRecord {
  const metadata: Record<string, string> = {};
  if (record.metadata !== null && typeof record.metadata === "object") {
    for (const [key, value] of Object.entries(record.metadata as Record<string, unknown>)) {
      Object.defineProperty(metadata, key, { value: value as string, enumerable: true, writable: false });
    }
  }
  return Object.freeze({
    text: record.text as string,
    id: typeof record.id === "string" ? record.id : null,
    source: typeof record.source === "string" ? record.source : null,
    metadata: Object.freeze(metadata),
  });
}

const errorName = (error: unknown): string => (error instanceof Error ? error.constructor.name : "Error");

/**
 * One check of one segment, reduced to plain JSON and classified (classify.ts), and what it says
 * about the canary. Never throws.
 */
async function checkSegment(pipeline: CheckingPipeline, slice: string): Promise<{ result: SegmentResult; canary: CanaryObservation }> {
  const failed = (error: string): { result: SegmentResult; canary: CanaryObservation } => ({
    result: { ...NOT_CHECKED, state: "error", error },
    canary: { kind: "not_called" },
  });
  try {
    const verdict = await pipeline.check(slice);
    if (!isGenuineVerdict(verdict)) return failed("TypeError");
    if (!verdict.isFor(slice)) return failed("VerdictMismatchError");
    // The class method, not anything an instance could carry: it builds fresh plain objects
    // from the frozen verdict, and classification validates every value (finite numbers
    // included) against the verdict schema before anything is recorded.
    const json: unknown = PipelineVerdict.prototype.toRecord.call(verdict);
    const classified = classifySegmentVerdict(json);
    if (isClassifyError(classified)) return failed(classified.error);
    const latency = verdict.totalLatency;
    const result: SegmentResult = {
      state: classified.state,
      exercised: classified.exercised,
      verdict: json as SegmentResult["verdict"],
      error: null,
      latency: Number.isFinite(latency) ? Math.round(latency * 10_000) / 10_000 : 0,
      prompt_eval_count: verdict.promptEvalCount,
      signals: classified.state === "block" || classified.state === "flag" ? layerSignals(verdict) : [],
    };
    return { result, canary: observeCanary(json as VerdictJson) };
  } catch (error) {
    return failed(errorName(error));
  }
}

/**
 * What a detecting verdict's layers name: the structural filter's reason labels when it
 * blocked, and the canary analysis's categories. Both are fixed labels chosen by this library
 * (or the caller's own custom-pattern reasons), never text from the record.
 */
function layerSignals(verdict: PipelineVerdict): string[] {
  const signals: string[] = [];
  for (const layer of verdict.layers) {
    if (layer.status !== "blocked" && layer.name !== "canary_probe") continue;
    for (const signal of layer.signals) if (typeof signal === "string" && signal !== "") signals.push(signal);
  }
  return signals;
}

/** A segment the run did not send because the circuit breaker had opened. */
const CIRCUIT_OPEN: SegmentResult = Object.freeze({ ...NOT_CHECKED, state: "error", error: CIRCUIT_OPEN_ERROR });

/** Per-run state the record checks share. */
interface RunContext {
  readonly pipeline: CheckingPipeline;
  readonly policy: IngestPolicy;
  readonly profile: CanaryProfile;
  readonly breaker: CanaryCircuitBreaker;
}

/** What checking one record produced; `entry` is its manifest entry, first plain, then canonical. */
interface RecordOutcome<Entry = ManifestRecord> {
  readonly entry: Entry;
  readonly checks: number;
  readonly admitted: AdmittedSnapshot | null;
}

/** A finished record: its outcome, with the manifest entry validated and serialized. */
type FinishedRecord = RecordOutcome<CanonicalRecordEntry>;

// Made canonical as soon as the record is final, while other records wait on the canary, so
// the end of the run only joins texts. A record that cannot be made canonical fails the run.
function finish(outcome: RecordOutcome, index: number): FinishedRecord {
  return { ...outcome, entry: canonicalRecordEntry(outcome.entry, index) };
}

/** A record held before any check, or one whose segments are planned and ready to check. */
type PreparedRecord =
  | { readonly kind: "held"; readonly outcome: RecordOutcome }
  | { readonly kind: "planned"; readonly index: number; readonly snapshot: SegmentableRecord; readonly plan: SegmentPlan };

/** Validation and planning, no checks: pure, done as a lane takes the record. */
function prepareRecord(record: RawRecord, policy: IngestPolicy, duplicateOf: number | undefined): PreparedRecord {
  const malformed = record.problems.find((problem) => problem.severity === "malformed");
  if (malformed) {
    const entry = malformedRecordEntry({ index: record.index, text: record.text, id: record.id, source: record.source, detail: malformed.message });
    return { kind: "held", outcome: { entry, checks: 0, admitted: null } };
  }
  if (duplicateOf !== undefined) {
    const entry = duplicateIdRecordEntry({
      index: record.index,
      id: record.id as string,
      source: record.source,
      text: record.text as string,
      firstIndex: duplicateOf,
    });
    return { kind: "held", outcome: { entry, checks: 0, admitted: null } };
  }
  const snapshot = snapshotOf(record);
  const plan = planSegments(snapshot, policy);
  if (plan.over_budget) {
    return { kind: "held", outcome: { entry: overBudgetRecordEntry({ index: record.index, record: snapshot, plan }), checks: 0, admitted: null } };
  }
  return { kind: "planned", index: record.index, snapshot, plan };
}

/**
 * Checks a planned record's segments in plan order. With `stop_after_hold`, the first hold
 * stops the canary calls for the record, but not the structural layer: every later segment
 * still goes through it, and one it blocks is recorded as that block (the check ends before
 * the canary). A pipeline without a canary checks every segment. Once the breaker is open, no
 * segment is sent to the canary; such a segment is an `error` (`canary_circuit_open`).
 */
async function checkRecord(run: RunContext, prepared: PreparedRecord): Promise<RecordOutcome> {
  if (prepared.kind === "held") return prepared.outcome;
  const { index, snapshot, plan } = prepared;
  const { pipeline, policy, profile, breaker } = run;
  const results: SegmentResult[] = [];
  let checks = 0;
  let stopped = false;
  for (const segment of plan.segments) {
    // The structural pre-check is only needed when the canary may not be called.
    if ((stopped || breaker.open) && !(profile.skipsCanaryOn?.(segment.text) ?? false)) {
      results.push(stopped ? NOT_CHECKED : CIRCUIT_OPEN);
      stopped = stopped || policy.stop_after_hold;
      continue;
    }
    checks++;
    const { result, canary } = await checkSegment(pipeline, segment.text);
    breaker.record(canary);
    results.push(result);
    if (policy.stop_after_hold && profile.canaryCalls && stopsChecking(result.state)) stopped = true;
  }
  const entry = checkedRecordEntry({ index, record: snapshot, plan, results });
  return { entry, checks, admitted: entry.admission === "admitted" ? { index, record: snapshot } : null };
}

/**
 * The order in which records are checked: longest text first (index order among equals), by
 * UTF-8 size as a stand-in for the segment count, which is only known once a record is
 * planned. A record's segments run one after another, so a long record started last would
 * keep the run going alone after every other lane is idle; starting long records first
 * shortens the whole run. Planning then happens in the lanes, as each record is taken, so
 * the first checks do not wait for every record to be planned. Results are still placed by
 * index, so the manifest does not depend on this order.
 */
function checkingOrder(records: readonly RawRecord[]): number[] {
  const weights = records.map((record) => (record.problems.some((p) => p.severity === "malformed") ? 0 : record.textBytes));
  return records.map((_, position) => position).sort((a, b) => (weights[b] as number) - (weights[a] as number) || a - b);
}

function pipelineInfo(pipeline: CheckingPipeline, gate: GateResult): PipelineInfo {
  if (!isGenuinePipeline(pipeline)) {
    return {
      mode: "block",
      provider: null,
      canary_model: null,
      canary_model_digest: null,
      analysis_method: "regex",
      structural_filter: null,
      canary_enabled: null,
      canary_num_ctx: null,
      canary_context_length: null,
      canary_context_verified: false,
    };
  }
  const d = pipeline.describe();
  return {
    mode: d.mode,
    provider: d.provider,
    canary_model: d.canaryModel,
    canary_model_digest: gate.modelDigest,
    analysis_method: d.analysisMethod,
    structural_filter: d.structuralFilter,
    canary_enabled: d.canaryEnabled,
    canary_num_ctx: d.canaryNumCtx,
    canary_context_length: gate.contextLength,
    canary_context_verified: gate.verified,
  };
}

/**
 * Runs a whole ingest over records already read (RawRecord from the JSONL reader, or in-memory
 * inputs) and returns the manifest and export documents with their canonical bytes.
 */
export async function ingestRecords(
  pipeline: CheckingPipeline,
  input: readonly RawRecord[] | { readonly inputs: readonly IngestInput[] },
  options: IngestOptions = {},
): Promise<IngestRun> {
  const { name: _name, ...overrides } = { ...(options.policy ?? {}) } as Record<string, unknown>;
  if (_name !== undefined && _name !== "strict/v1") throw new LittleCanaryError("usage", "only the strict/v1 policy is supported");
  const policy = resolvePolicy(overrides as PolicyOverrides);
  const clock = options.clock ?? (() => new Date());
  const gate = await runContextGate(pipeline, policy, { unverifiedPipeline: options.unverifiedPipeline === true });
  const records = "inputs" in input ? admitIngestInputs(input.inputs, policy) : input;
  const startedAt = formatTimestamp(clock());
  const order = checkingOrder(records);
  const duplicateIds = findDuplicateIds(records);
  const heldDuplicates = new Map(options.uniqueIds === true ? duplicateIds.map((d) => [d.index, d.firstIndex] as const) : []);
  const context: RunContext = {
    pipeline,
    policy,
    profile: canaryProfile(pipeline),
    breaker: new CanaryCircuitBreaker(options.maxCanaryFailures ?? DEFAULT_MAX_CANARY_FAILURES),
  };
  const checkAt = async (position: number): Promise<FinishedRecord> => {
    const record = records[position] as RawRecord;
    return finish(await checkRecord(context, prepareRecord(record, policy, heldDuplicates.get(record.index))), position);
  };
  const checked = await mapOrdered(order, checkAt, {
    concurrency: options.concurrency ?? 1,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const outcomes: FinishedRecord[] = new Array(records.length);
  order.forEach((position, k) => {
    outcomes[position] = checked[k] as FinishedRecord;
  });
  const finishedAt = formatTimestamp(clock());
  const exportRequested = options.exportRequested === true;
  const manifest = buildManifestFromEntries({
    little_canary_version: VERSION,
    started_at: startedAt,
    finished_at: finishedAt,
    pipeline: pipelineInfo(pipeline, gate),
    policy,
    checks_performed: outcomes.reduce((sum, outcome) => sum + outcome.checks, 0),
    input_sha256: options.inputSha256 ?? null,
    export_requested: exportRequested,
    records: outcomes.map((outcome) => outcome.entry),
  });
  const admitted = outcomes.flatMap((outcome) => (outcome.admitted ? [outcome.admitted] : []));
  return {
    manifest,
    export: exportRequested ? buildExport(manifest, admitted) : null,
    gate,
    circuitOpen: context.breaker.trip,
    duplicateIds,
  };
}
