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
// This run holds every record; `ingestFiles` streams instead (stream-run.ts). Both check a
// record with the same code (record-check.ts) and write the same bytes for the same input.
import { admitInMemoryInputs } from "../jsonl/admit.js";
import type { RawRecord } from "../jsonl/record.js";
import { buildExport, buildManifestFromEntries, formatTimestamp, type CanonicalDocument } from "../documents/manifest-build.js";
import type { IngestExport, IngestManifest } from "../documents/schemas.js";
import { mapOrdered } from "../schedule/map-ordered.js";
import { canaryProfile } from "../pipeline/canary-profile.js";
import { CanaryCircuitBreaker, DEFAULT_MAX_CANARY_FAILURES, type BreakerTrip } from "../schedule/circuit-breaker.js";
import { LittleCanaryError } from "../core/errors.js";
import { VERSION } from "../core/version.js";
import { runContextGate, type CheckingPipeline, type GateResult } from "./gate.js";
import { readerLimitsForPolicy, resolvePolicy, type IngestPolicy, type PolicyOverrides } from "../documents/policy.js";

export { readerLimitsForPolicy };
import { entryFacts, RunTally, type DuplicateId, type IngestRunSummary } from "./run-summary.js";
import type { Allowlist } from "../documents/allowlist.js";
import { checkRecord, finishRecord, pipelineInfo, prepareRecord, type FinishedRecord, type RunContext } from "./record-check.js";

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
  /** An allowlist (parseAllowlist): held records whose every hold is a detection and whose hash is listed are admitted. */
  readonly allowlist?: Allowlist;
}

/** The result of an ingest run in memory: the manifest and, when asked, the export, not yet written. */
export interface IngestRun {
  readonly manifest: CanonicalDocument<IngestManifest>;
  readonly export: CanonicalDocument<IngestExport> | null;
  readonly gate: GateResult;
  /** Set when the circuit breaker opened: canary calls stopped part-way through the run. */
  readonly circuitOpen: BreakerTrip | null;
  /**
   * Valid records whose id repeats an earlier valid record's (by index), with the index of the
   * first: the repeats `uniqueIds` holds. `summary.duplicateIds` counts as counts.duplicate_ids
   * does (malformed records included).
   */
  readonly duplicateIds: readonly DuplicateId[];
  /** What the run reports besides its documents (the same summary a streamed run gives). */
  readonly summary: IngestRunSummary;
}

export type { DuplicateId };

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
    ...(options.allowlist ? { allowlist: options.allowlist } : {}),
    ...(gate.beforeFirstCheck ? { beforeCheck: gate.beforeFirstCheck } : {}),
  };
  const checkAt = async (position: number): Promise<FinishedRecord> => {
    const record = records[position] as RawRecord;
    return finishRecord(await checkRecord(context, prepareRecord(record, policy, heldDuplicates.get(record.index))), position);
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
    ...(options.allowlist ? { allowlist: { sha256: options.allowlist.sha256, entries: options.allowlist.entries.length } } : {}),
    records: outcomes.map((outcome) => outcome.entry),
  });
  const admitted = outcomes.flatMap((outcome) => (outcome.admitted ? [outcome.admitted] : []));
  const tally = new RunTally();
  // Repeated ids as countRecords counts them (counts.duplicate_ids): by id digest, malformed records included.
  const firstUse = new Map<string, number>();
  for (const [position, entry] of manifest.document.records.entries()) {
    const digest = entry.id_sha256;
    const first = digest === null ? undefined : firstUse.get(digest);
    if (digest !== null && first === undefined) firstUse.set(digest, position);
    tally.observe(entryFacts(entry), (records[position] as RawRecord).line, first ?? null);
  }
  const { records: _records, ...head } = manifest.document;
  return {
    summary: tally.summary(head),
    manifest,
    export: exportRequested ? buildExport(manifest, admitted) : null,
    gate,
    circuitOpen: context.breaker.trip,
    duplicateIds,
  };
}
