// Checking one record of an ingest run: the hold decided before any check (`holdBeforeChecks`,
// at admission), then a planned record's segments through the pipeline in plan order
// (`checkRecord`, in the record runner). Stopping after a hold saves canary calls only: every
// segment still goes through the structural layer (microseconds), and a record's detection is
// "none" only when every segment was inspected.
import type { RawRecord } from "../jsonl/record.js";
import {
  NOT_CHECKED,
  checkedRecordEntry,
  duplicateIdRecordEntry,
  malformedRecordEntry,
  overBudgetRecordEntry,
  type SegmentResult,
} from "../documents/manifest-records.js";
import type { ManifestRecord, PipelineInfoV3 } from "../documents/schemas.js";
import { isGenuineVerdict, PipelineVerdict } from "../pipeline/verdict.js";
import { CIRCUIT_OPEN_ERROR, observeCanary, type CanaryCircuitBreaker, type CanaryObservation } from "../pipeline/circuit-breaker.js";
import type { VerdictJson } from "../documents/verdict-schema.js";
import { isOverBudget, planSegments, type SegmentableRecord, type SegmentPlan } from "../documents/segment-plan.js";
import { classifySegmentVerdict, isClassifyError } from "../documents/classify.js";
import { isGenuinePipeline, type CanaryProfile } from "../pipeline/pipeline.js";
import { UNVERIFIED_GATE, type CheckingPipeline, type GateResult } from "./gate.js";
import type { IngestPolicy } from "../documents/policy.js";
import { stopsChecking } from "../documents/record-state.js";
import type { SegmentVerdictCache } from "./segment-cache.js";
import type { Allowlist } from "../documents/allowlist.js";

/** The record's fields as the checks and the export see them, frozen. */
export function snapshotOf(record: RawRecord): SegmentableRecord {
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

/**
 * One check of one segment, reduced to plain JSON and classified (classify.ts), and what it says
 * about the canary. Never throws, but for the run's abort (`signal`): the check is abandoned and
 * the abort's reason thrown, never recorded as the segment's error.
 */
export async function checkSegment(
  pipeline: CheckingPipeline,
  slice: string,
  signal?: AbortSignal,
): Promise<{ result: SegmentResult; canary: CanaryObservation }> {
  const failed = (error: string): { result: SegmentResult; canary: CanaryObservation } => ({
    result: { ...NOT_CHECKED, state: "error", error },
    canary: { kind: "not_called" },
  });
  try {
    const verdict = await pipeline.check(slice, signal ? { signal } : {});
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
    if (signal?.aborted === true) throw signal.reason;
    return failed(error instanceof Error ? error.constructor.name : "Error");
  }
}

/** What a detecting verdict's layers name: fixed labels (or the caller's custom-pattern reasons), never record text. */
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
export interface RunContext {
  /** The verdict cache of this run's canary identity, when the run uses one. */
  readonly cache?: SegmentVerdictCache;
  readonly pipeline: CheckingPipeline;
  readonly policy: IngestPolicy;
  readonly profile: CanaryProfile;
  readonly breaker: CanaryCircuitBreaker;
  /** The run's allowlist (`--allow`): applied to each record's state after its segments are classified, so the verdicts (and the cache) never see it. */
  readonly allowlist?: Allowlist;
  /** Awaited before each check that is sent (the gate's `beforeFirstCheck`: a proof that costs a chat call, made once); a rejection fails the run. */
  readonly beforeCheck?: () => Promise<void>;
  /** The run's abort: a check in flight is abandoned (its canary call's connection closed). */
  readonly signal?: AbortSignal;
}

/** What checking one record produced: its manifest entry and the checks sent. */
export interface RecordOutcome {
  readonly entry: ManifestRecord;
  readonly checks: number;
}

/** A record whose segments are planned and ready to check. */
export interface PlannedRecord {
  readonly index: number;
  readonly snapshot: SegmentableRecord;
  readonly plan: SegmentPlan;
}

/** The entry of a record held before any check (malformed, a repeated id, over budget), or null: the runner plans the rest. */
export function holdBeforeChecks(record: RawRecord, policy: IngestPolicy, duplicateOf: number | undefined): ManifestRecord | null {
  const malformed = record.problems.find((problem) => problem.severity === "malformed");
  if (malformed) return malformedRecordEntry({ index: record.index, text: record.text, id: record.id, source: record.source, detail: malformed.message });
  if (duplicateOf !== undefined) {
    return duplicateIdRecordEntry({
      index: record.index,
      id: record.id as string,
      source: record.source,
      text: record.text as string,
      firstIndex: duplicateOf,
    });
  }
  const snapshot = snapshotOf(record);
  if (!isOverBudget(snapshot, policy)) return null;
  return overBudgetRecordEntry({ index: record.index, record: snapshot, plan: planSegments(snapshot, policy, { budgetOnly: true }) });
}

/**
 * The runs whose proof before the first check is made (RunContext.beforeCheck). The gate shares
 * one outcome anyway; this spares asking the structural filter, once per segment, whether a
 * segment needs the proof at all.
 */
const PROVED = new WeakSet<RunContext>();

/**
 * Checks a planned record's segments in plan order. With `stop_after_hold` the first hold stops
 * the record's canary calls, not the structural layer (a later block is recorded as one); once
 * the breaker is open no segment goes to the canary (`error`, `canary_circuit_open`). With
 * `cacheOnly` nothing is sent and no lookup counted: the entry the same steps give from cached
 * verdicts alone (what a later run would make), or null when a segment would need a check.
 */
export function checkRecord(run: RunContext, prepared: PlannedRecord): Promise<RecordOutcome>;
export function checkRecord(run: RunContext, prepared: PlannedRecord, cacheOnly: true): Promise<RecordOutcome | null>;
export async function checkRecord(run: RunContext, prepared: PlannedRecord, cacheOnly = false): Promise<RecordOutcome | null> {
  const { index, snapshot, plan } = prepared;
  const { pipeline, policy, profile, breaker, cache } = run;
  if (cacheOnly && cache === undefined) return null;
  const results: SegmentResult[] = [];
  let checks = 0;
  let stopped = false;
  for (const segment of plan.segments) {
    // A verdict reused from the cache costs no call, even with the breaker open; once the
    // record has stopped, later segments are not checked, cached or not.
    const reused = stopped ? null : ((cacheOnly ? cache?.peek(segment.sha256) : cache?.lookup(segment.sha256)) ?? null);
    if (reused !== null) {
      results.push(reused);
      if (policy.stop_after_hold && profile.canaryCalls && stopsChecking(reused.state)) stopped = true;
      continue;
    }
    // The structural pre-check is only needed when the canary may not be called.
    if ((stopped || (!cacheOnly && breaker.open)) && !(profile.skipsCanaryOn?.(segment.text) ?? false)) {
      results.push(stopped ? NOT_CHECKED : CIRCUIT_OPEN);
      stopped = stopped || policy.stop_after_hold;
      continue;
    }
    // Not in the cache, or a stopped segment the structural layer would see: only a check gives it.
    if (cacheOnly) return null;
    // The proof before the first check costs a chat call: a segment the structural layer keeps
    // from the canary does not need it, so a re-run whose only new checks are structural blocks
    // (never cached) sends no chat at all. Asked only until the proof is made.
    if (run.beforeCheck !== undefined && !PROVED.has(run) && !(profile.skipsCanaryOn?.(segment.text) ?? false)) {
      await run.beforeCheck();
      PROVED.add(run);
    }
    checks++;
    const { result, canary } = await checkSegment(pipeline, segment.text, run.signal);
    breaker.record(canary);
    cache?.store(segment.sha256, result);
    results.push(result);
    if (policy.stop_after_hold && profile.canaryCalls && stopsChecking(result.state)) stopped = true;
  }
  const entry = checkedRecordEntry({ index, record: snapshot, plan, results, ...(run.allowlist ? { allowlist: run.allowlist } : {}) });
  return { entry, checks };
}

/** What the manifest records about the pipeline and the context gate. */
export function pipelineInfo(pipeline: CheckingPipeline, gate: GateResult): PipelineInfoV3 {
  const d = isGenuinePipeline(pipeline) ? pipeline.describe() : null;
  // Of a pipeline this library did not build, the manifest records nothing it or the gate says.
  if (d === null) gate = UNVERIFIED_GATE;
  return {
    mode: d?.mode ?? "block",
    provider: d?.provider ?? null,
    canary_model: d?.canaryModel ?? null,
    canary_model_digest: gate.modelDigest,
    analysis_method: d?.analysisMethod ?? "regex",
    structural_filter: d?.structuralFilter ?? null,
    structural_rules_version: d?.structuralRulesVersion ?? null,
    canary_enabled: d?.canaryEnabled ?? null,
    canary_num_ctx: d?.canaryNumCtx ?? null,
    canary_context_length: gate.contextLength,
    canary_context_verified: gate.verified,
    ...(gate.server !== undefined ? { canary_server: gate.server } : {}),
    ...(gate.embedded !== undefined
      ? {
          canary_embedded: {
            identity: gate.embedded.identity,
            sha256: gate.embedded.sha256,
            engine: gate.embedded.engine,
            engine_version: gate.embedded.engine_version,
            context_size: gate.embedded.context_size,
          },
        }
      : {}),
    ...(gate.canaryFingerprint ? { canary_fingerprint: { sha256: gate.canaryFingerprint.sha256, probes: gate.canaryFingerprint.probes } } : {}),
  };
}
